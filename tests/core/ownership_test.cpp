#include "core/diagnosis/ownership.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "core/graph/dominators.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// vm -> Cache class 0x10 -> Hash 0x20 -> users 0x101..0x103 (each -> a name string)
// global_tbl -> Array 0x30 -> 0x201 string; 0x202 held by both 0x20 and 0x30
std::shared_ptr<const Heap> cache_heap() {
  return load_text(join_lines({
      root_line("vm", {"0x10"}),
      root_line("global_tbl", {"0x30"}),
      class_line("0x10", "Cache", {"0x20"}),
      class_line("0x11", "User"),
      object_line({"0x20", "HASH", "", {"0x101", "0x102", "0x103", "0x202"}, R"("memsize":100)"}),
      object_line({"0x30", "ARRAY", "", {"0x201", "0x202"}, R"("memsize":60)"}),
      object_line({"0x101", "OBJECT", "0x11", {"0x111"}, R"("memsize":40)"}),
      object_line({"0x102", "OBJECT", "0x11", {"0x112"}, R"("memsize":40)"}),
      object_line({"0x103", "OBJECT", "0x11", {"0x113"}, R"("memsize":40)"}),
      object_line({"0x111", "STRING", "", {}, R"("memsize":40, "value":"same")"}),
      object_line({"0x112", "STRING", "", {}, R"("memsize":40, "value":"same")"}),
      object_line({"0x113", "STRING", "", {}, R"("memsize":40, "value":"other")"}),
      object_line({"0x201", "STRING", "", {}, R"("memsize":40, "value":"same")"}),
      object_line({"0x202", "STRING", "", {}, R"("memsize":40)"}),
  }));
}

}  // namespace

TEST_CASE("the owner of a set is its lowest common dominator", "[ownership]") {
  auto heap = cache_heap();
  std::vector<ObjectIndex> users{index_of(*heap, "0x101"), index_of(*heap, "0x102"),
                                 index_of(*heap, "0x103")};
  const OwnerReport report = find_owner(*heap, users);
  REQUIRE(report.owner.object != kNoObject);
  CHECK(heap->address(report.owner.object) == 0x20);
  CHECK(report.owner.retained == 100 + 3 * 80);  // the shared 0x202 is not the hash's alone
  REQUIRE_FALSE(report.owner_path.path.empty());
  CHECK(report.owner_path.root == "vm");
  // merged paths: GC roots -> ROOT vm -> CLASS:Cache -> HASH -> User (3)
  REQUIRE(report.merged_paths.children.size() == 1);
  const auto& vm = report.merged_paths.children[0];
  CHECK(vm.key == "ROOT vm");
  CHECK(vm.count == 3);
  REQUIRE(vm.children.size() == 1);
  CHECK(vm.children[0].key == "CLASS:Cache");
  CHECK(vm.children[0].children[0].children[0].key == "User");
}

TEST_CASE("a set held from two roots has one owner per part", "[ownership]") {
  auto heap = cache_heap();
  std::vector<ObjectIndex> set{index_of(*heap, "0x111"), index_of(*heap, "0x201")};
  const OwnerReport report = find_owner(*heap, set);
  CHECK(report.owner.object == kNoObject);
  REQUIRE(report.owners.size() == 2);
}

TEST_CASE("top retainers by object and by class", "[ownership]") {
  auto heap = cache_heap();
  auto top = top_retainers(*heap, 2);
  REQUIRE(top.size() == 2);
  CHECK(heap->address(top[0].object) == 0x10);  // the class holds the hash
  CHECK(top[0].retained == heap->memsize(top[0].object) + 340);
  auto by_class = top_retainers_by_class(*heap, 10);
  auto user = std::find_if(by_class.begin(), by_class.end(),
                           [](const ClassRetention& c) { return c.key == "User"; });
  REQUIRE(user != by_class.end());
  CHECK(user->count == 3);
  CHECK(user->retained == 3 * 80);
}

TEST_CASE("duplicate strings are grouped by content", "[ownership]") {
  auto heap = cache_heap();
  auto dups = duplicate_strings(*heap, 10);
  REQUIRE(dups.size() == 1);
  CHECK(dups[0].count == 3);
  CHECK(dups[0].memsize == 120);
  CHECK(dups[0].wasted == 80);
}

namespace {

// A heap of many strings: 40 values, value k copied k times (so each value
// has its own waste), plus unique strings; every string held by one array.
std::shared_ptr<const Heap> many_strings_heap() {
  std::vector<std::string> lines;
  std::vector<std::string> all;
  std::uint64_t address = 0x1000;
  std::vector<std::string> objects;
  for (int value = 1; value <= 40; ++value) {
    for (int copy = 0; copy < value; ++copy) {
      const std::string a = format_address(address += 0x28);
      all.push_back(a);
      objects.push_back(object_line({a,
                                     "STRING",
                                     "",
                                     {},
                                     "\"value\":\"v" + std::to_string(value) +
                                         "\",\"memsize\":" + std::to_string(40 + value % 3)}));
    }
  }
  for (int unique = 0; unique < 500; ++unique) {
    const std::string a = format_address(address += 0x28);
    all.push_back(a);
    objects.push_back(object_line(
        {a, "STRING", "", {}, "\"value\":\"u" + std::to_string(unique) + "\",\"memsize\":40"}));
  }
  lines.push_back(root_line("vm", {"0x10"}));
  lines.push_back(object_line({"0x10", "ARRAY", "", all, R"("memsize":100)"}));
  lines.insert(lines.end(), objects.begin(), objects.end());
  return load_text(join_lines(lines));
}

}  // namespace

TEST_CASE("duplicate strings: the best rows in order, with their first samples", "[ownership]") {
  auto heap = many_strings_heap();
  // What the answer must be, from a plain map of every value.
  std::map<std::uint32_t, DuplicateStrings> by_value;
  for (ObjectIndex i = 0; i < heap->size(); ++i) {
    if (heap->type(i) != ObjectType::kString || heap->value_hash(i) == 0) continue;
    DuplicateStrings& entry = by_value[heap->value_hash(i)];
    entry.value_hash = heap->value_hash(i);
    ++entry.count;
    entry.memsize += heap->memsize(i);
    if (entry.samples.size() < 5) entry.samples.push_back(i);
  }
  std::vector<DuplicateStrings> expected;
  for (auto& [hash, entry] : by_value) {
    if (entry.count < 2) continue;
    entry.wasted = entry.memsize - entry.memsize / entry.count;
    expected.push_back(entry);
  }
  std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
    return a.wasted != b.wasted ? a.wasted > b.wasted : a.count > b.count;
  });
  REQUIRE(expected.size() == 39);  // value 1 has one copy
  for (std::size_t limit : {std::size_t{1}, std::size_t{7}, std::size_t{39}, SIZE_MAX}) {
    INFO("limit " << limit);
    auto got = duplicate_strings(*heap, limit);
    REQUIRE(got.size() == std::min(limit, expected.size()));
    for (std::size_t k = 0; k < got.size(); ++k) {
      INFO("row " << k);
      CHECK(got[k].value_hash == expected[k].value_hash);
      CHECK(got[k].count == expected[k].count);
      CHECK(got[k].memsize == expected[k].memsize);
      CHECK(got[k].wasted == expected[k].wasted);
      CHECK(got[k].samples == expected[k].samples);
    }
  }
  CHECK(duplicate_strings(*heap, 0).empty());
  CHECK(duplicate_strings(*heap, 3, 0)[0].samples.empty());
}

TEST_CASE("top retainers: a few rows equal the head of all rows", "[ownership]") {
  auto heap = many_strings_heap();
  auto all = top_retainers(*heap, SIZE_MAX);
  REQUIRE(all.size() == heap->size());
  for (std::size_t limit : {std::size_t{0}, std::size_t{1}, std::size_t{20}, std::size_t{400}}) {
    INFO("limit " << limit);
    auto few = top_retainers(*heap, limit);
    REQUIRE(few.size() == limit);
    for (std::size_t k = 0; k < limit; ++k) {
      CHECK(few[k].object == all[k].object);
      CHECK(few[k].retained == all[k].retained);
    }
  }
  CHECK(heap->address(all[0].object) == 0x10);
}
