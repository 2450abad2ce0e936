#include "core/graph/common_retainer.h"

#include <catch2/catch.hpp>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

RetainerResult retain(const Heap& heap, const std::vector<std::string>& samples,
                      std::size_t k = 0) {
  RetainerQuery query;
  for (const auto& s : samples) query.samples.push_back(index_of(heap, s));
  query.min_samples = k;
  return find_common_retainer(heap, query);
}

std::string address_of(const Heap& heap, ObjectIndex i) {
  return i == kNoObject ? "none" : format_address(heap.address(i));
}

}  // namespace

TEST_CASE("the nearest object holding every sample", "[common_retainer]") {
  // holder 0x10 -> array 0x20 -> s1, s2, s3 ; s1 also held by 0x30
  auto heap = load_text(join_lines({
      object_line({"0x10", "OBJECT", "", {"0x20"}}),
      object_line({"0x20", "ARRAY", "", {"0x101", "0x102", "0x103"}}),
      object_line({"0x30", "HASH", "", {"0x101"}}),
      object_line({"0x101", "STRING"}),
      object_line({"0x102", "STRING"}),
      object_line({"0x103", "STRING"}),
  }));
  auto r = retain(*heap, {"0x101", "0x102", "0x103"});
  CHECK(address_of(*heap, r.retainer) == "0x20");
  CHECK(r.distance == 1);
  REQUIRE(r.paths.size() == 3);
  for (const auto& path : r.paths) CHECK(path.front() == r.retainer);
}

TEST_CASE("samples at different depths (where the seed stopped at a 2-of-4 node)",
          "[common_retainer]") {
  // root 0x10 holds a (0x20) and b (0x30); a holds s1, s2; b -> c (0x40) -> s3, s4
  auto heap = load_text(join_lines({
      object_line({"0x10", "ARRAY", "", {"0x20", "0x30"}}),
      object_line({"0x20", "ARRAY", "", {"0x101", "0x102"}}),
      object_line({"0x30", "ARRAY", "", {"0x40"}}),
      object_line({"0x40", "ARRAY", "", {"0x103", "0x104"}}),
      object_line({"0x101", "STRING"}),
      object_line({"0x102", "STRING"}),
      object_line({"0x103", "STRING"}),
      object_line({"0x104", "STRING"}),
  }));
  auto r = retain(*heap, {"0x101", "0x102", "0x103", "0x104"});
  CHECK(address_of(*heap, r.retainer) == "0x10");
  CHECK(r.distance == 3);
  SECTION("at least 2 of 4") {
    auto two = retain(*heap, {"0x101", "0x102", "0x103", "0x104"}, 2);
    CHECK(address_of(*heap, two.retainer) == "0x20");  // lower address wins the tie with 0x40
    CHECK(two.distance == 1);
    CHECK(two.paths.size() == 2);
  }
}

TEST_CASE("samples that reach each other through a cycle are not the answer", "[common_retainer]") {
  // list 0x20 holds s1 and s2; s1 <-> s2 reference each other
  auto heap = load_text(join_lines({
      object_line({"0x20", "ARRAY", "", {"0x101", "0x102"}}),
      object_line({"0x101", "OBJECT", "", {"0x102"}}),
      object_line({"0x102", "OBJECT", "", {"0x101"}}),
  }));
  auto r = retain(*heap, {"0x101", "0x102"});
  CHECK(address_of(*heap, r.retainer) == "0x20");
  CHECK(r.distance == 1);
}

TEST_CASE("the answer does not depend on the order of the samples", "[common_retainer]") {
  auto heap = load_text(join_lines({
      object_line({"0x10", "ARRAY", "", {"0x101", "0x102"}}),
      object_line({"0x11", "ARRAY", "", {"0x101", "0x102"}}),
      object_line({"0x101", "STRING"}),
      object_line({"0x102", "STRING"}),
  }));
  auto a = retain(*heap, {"0x101", "0x102"});
  auto b = retain(*heap, {"0x102", "0x101"});
  CHECK(a.retainer == b.retainer);
  CHECK(address_of(*heap, a.retainer) == "0x10");
}

TEST_CASE("no common retainer, and a long chain without a depth cap", "[common_retainer]") {
  std::vector<std::string> lines = {
      object_line({"0x101", "STRING"}), object_line({"0x102", "STRING"}),
      object_line({"0x20", "ARRAY", "", {"0x101"}}), object_line({"0x30", "ARRAY", "", {"0x102"}})};
  SECTION("disjoint") {
    auto heap = load_text(join_lines(lines));
    auto r = retain(*heap, {"0x101", "0x102"});
    CHECK(r.retainer == kNoObject);
    CHECK_FALSE(r.budget_exhausted);
  }
  SECTION("joined 50 hops up (the seed stopped at 10)") {
    std::string below = "0x20";
    for (int k = 0; k < 50; ++k) {
      std::string above = "0x" + std::to_string(1000 + k);
      lines.push_back(object_line({above, "ARRAY", "", {below}}));
      below = above;
    }
    lines.push_back(object_line({"0x9999", "ARRAY", "", {below, "0x30"}}));
    auto heap = load_text(join_lines(lines));
    auto r = retain(*heap, {"0x101", "0x102"});
    CHECK(address_of(*heap, r.retainer) == "0x9999");
    CHECK(r.distance == 52);
  }
}

TEST_CASE("one sample: its nearest referrer", "[common_retainer]") {
  auto heap = load_text(join_lines(
      {object_line({"0x20", "ARRAY", "", {"0x101"}}), object_line({"0x101", "STRING"})}));
  auto r = retain(*heap, {"0x101"});
  CHECK(address_of(*heap, r.retainer) == "0x20");
}

TEST_CASE("a visit budget ends a hopeless search with a clear flag", "[common_retainer]") {
  std::vector<std::string> lines = {object_line({"0x101", "STRING"}),
                                    object_line({"0x102", "STRING"})};
  std::string below = "0x101";
  for (int k = 0; k < 100; ++k) {
    std::string above = "0x" + std::to_string(1000 + k);
    lines.push_back(object_line({above, "ARRAY", "", {below}}));
    below = above;
  }
  auto heap = load_text(join_lines(lines));
  RetainerQuery query{{index_of(*heap, "0x101"), index_of(*heap, "0x102")}, 0, 10};
  auto r = find_common_retainer(*heap, query);
  CHECK(r.retainer == kNoObject);
  CHECK(r.budget_exhausted);
}
