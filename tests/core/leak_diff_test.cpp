#include "core/diagnosis/leak_diff.h"

#include <catch2/catch.hpp>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

std::vector<std::string> addresses(const Heap& heap, const std::vector<ObjectIndex>& objects) {
  std::vector<std::string> out;
  for (ObjectIndex i : objects) out.push_back(format_address(heap.address(i)));
  return out;
}

const std::string kClasses =
    join_lines({class_line("0x10", "User"), class_line("0x20", "Session")});

}  // namespace

TEST_CASE("3-dump diff: new in B and still alive in C", "[leak_diff]") {
  auto a = load_text(
      kClasses +
      join_lines({
          object_line({"0x100", "OBJECT", "0x10"}),                      // long-lived
          object_line({"0x200", "STRING", "", {}, R"("value":"old")"}),  // slot reused in B
      }));
  auto b = load_text(
      kClasses +
      join_lines({
          object_line({"0x100", "OBJECT", "0x10"}),
          object_line({"0x200", "STRING", "", {}, R"("value":"leak 1")"}),  // new: value differs
          object_line({"0x300", "OBJECT", "0x10"}),                         // new, leaked
          object_line({"0x400", "OBJECT", "0x20"}),                         // new, freed before C
          object_line({"0x500", "OBJECT", "0x20"}),                         // new, slot reused in C
      }));
  auto c = load_text(kClasses + join_lines({
                                    object_line({"0x100", "OBJECT", "0x10"}),
                                    object_line({"0x200", "STRING", "", {}, R"("value":"leak 1")"}),
                                    object_line({"0x300", "OBJECT", "0x10"}),
                                    object_line({"0x500", "OBJECT", "0x10"}),  // other class now
                                }));
  const LeakDiff diff = diff_heaps(*a, *b, c.get());
  CHECK(diff.three_way);
  CHECK(addresses(*b, diff.leaked) == std::vector<std::string>{"0x200", "0x300"});
  REQUIRE(diff.groups.size() == 2);
  CHECK(diff.total_count == 2);
  CHECK_FALSE(diff.compacted);

  SECTION("the 2-dump diff is B - A") {
    const LeakDiff two = diff_heaps(*a, *b, nullptr);
    CHECK_FALSE(two.three_way);
    CHECK(addresses(*b, two.leaked) ==
          std::vector<std::string>{"0x200", "0x300", "0x400", "0x500"});
  }
}

TEST_CASE("groups are sorted by count, carry memsize and every sample", "[leak_diff]") {
  auto a = load_text(kClasses);
  std::vector<std::string> lines;
  for (int k = 0; k < 5; ++k)
    lines.push_back(
        object_line({"0x10" + std::to_string(k) + "0", "OBJECT", "0x10", {}, R"("memsize":40)"}));
  for (int k = 0; k < 3; ++k)
    lines.push_back(
        object_line({"0x20" + std::to_string(k) + "0", "STRING", "", {}, R"("memsize":100)"}));
  lines.push_back(object_line({"0x300", "DATA", "0x20", {}, R"("struct":"mutex")"}));
  auto b = load_text(kClasses + join_lines(lines));
  const LeakDiff diff = diff_heaps(*a, *b, b.get());
  REQUIRE(diff.groups.size() == 3);
  CHECK(diff.groups[0].key == "User");
  CHECK(diff.groups[0].count == 5);
  CHECK(diff.groups[0].memsize == 200);
  CHECK(diff.groups[0].samples.size() == 5);
  CHECK(diff.groups[1].key == "STRING");
  CHECK(diff.groups[1].memsize == 300);
  CHECK(diff.groups[2].key == "Session");  // typed DATA groups by its Ruby class (issue 12)
  CHECK(diff.total_memsize == 500);

  LeakDiffOptions few;
  few.samples_per_group = 2;
  CHECK(diff_heaps(*a, *b, b.get(), few).groups[0].samples.size() == 2);
}

TEST_CASE("grouping by allocation site and by generation", "[leak_diff]") {
  auto a = load_text(kClasses);
  auto b = load_text(
      kClasses +
      join_lines({
          object_line(
              {"0x100", "STRING", "", {}, R"("file":"app/cache.rb", "line":12, "generation":5)"}),
          object_line(
              {"0x200", "STRING", "", {}, R"("file":"app/cache.rb", "line":12, "generation":6)"}),
          object_line(
              {"0x300", "OBJECT", "0x10", {}, R"("file":"app/user.rb", "line":3, "generation":6)"}),
      }));
  LeakDiffOptions by_site;
  by_site.group_by = GroupBy::kSite;
  auto diff = diff_heaps(*a, *b, nullptr, by_site);
  REQUIRE(diff.groups.size() == 2);
  CHECK(diff.groups[0].key == "app/cache.rb:12");
  CHECK(diff.groups[0].count == 2);
  LeakDiffOptions by_generation;
  by_generation.group_by = GroupBy::kGeneration;
  diff = diff_heaps(*a, *b, nullptr, by_generation);
  REQUIRE(diff.groups.size() == 2);
  CHECK(diff.groups[0].key == "generation 6");
}

TEST_CASE("compacted dumps are detected and diffed by content fingerprint", "[leak_diff]") {
  // 2000 long-lived strings move between every dump; 10 strings new in B
  // stay (moved again) in C; 5 strings new in B are gone by C.
  auto a = load_text(packed_strings_dump(0x100000, 0, 0));
  auto b = load_text(packed_strings_dump(0x200000, 10, 5));
  auto c = load_text(packed_strings_dump(0x300000, 10, 0));
  const LeakDiff diff = diff_heaps(*a, *b, c.get());
  CHECK(diff.compacted);
  REQUIRE(diff.warnings.size() >= 2);
  CHECK_THAT(diff.warnings[0], Catch::Contains("compacted"));
  CHECK_THAT(diff.rule, Catch::Contains("fingerprint"));
  REQUIRE(diff.total_count == 10);
  for (ObjectIndex i : diff.leaked) {
    CHECK(b->address(i) >= 0x200000 + 0x28 * 2000);
    CHECK(b->address(i) < 0x200000 + 0x28 * 2010);
  }
}

TEST_CASE("free slots (NONE) are never reported", "[leak_diff]") {
  auto a = load_text(kClasses);
  auto b = load_text(
      kClasses + join_lines({object_line({"0x100", "NONE"}), object_line({"0x200", "STRING"})}));
  CHECK(diff_heaps(*a, *b, b.get()).total_count == 1);
}
