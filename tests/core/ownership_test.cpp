#include "core/ownership.h"

#include <catch2/catch.hpp>

#include "core/dominators.h"
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

TEST_CASE("explain ranks leak groups by retained bytes with owners", "[ownership]") {
  auto a = load_text(join_lines({root_line("vm", {"0x10"}), class_line("0x10", "Cache", {"0x20"}),
                                 class_line("0x11", "User"),
                                 object_line({"0x20", "HASH", "", {}, R"("memsize":100)"})}));
  auto b = cache_heap();
  const LeakDiff diff = diff_heaps(*a, *b, b.get());
  auto explained = explain_leak(*b, diff);
  REQUIRE_FALSE(explained.empty());
  auto users = std::find_if(explained.begin(), explained.end(),
                            [](const LeakExplanation& e) { return e.group.key == "User"; });
  REQUIRE(users != explained.end());
  REQUIRE(users->owners.size() == 1);
  CHECK(b->address(users->owners[0].object) == 0x20);
  CHECK(users->retained == 3 * 80);
  CHECK(users->path.root == "vm");
  for (std::size_t k = 1; k < explained.size(); ++k)
    CHECK(explained[k - 1].retained >= explained[k].retained);
}
