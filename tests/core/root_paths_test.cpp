#include "core/graph/root_paths.h"

#include <catch2/catch.hpp>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

TEST_CASE("the shortest path from any GC root", "[root_paths]") {
  auto heap = load_text(join_lines({
      root_line("vm", {"0x10"}), root_line("global_tbl", {"0x50"}),
      object_line({"0x10", "OBJECT", "", {"0x20"}}), object_line({"0x20", "OBJECT", "", {"0x30"}}),
      object_line({"0x30", "OBJECT", "", {"0x40"}}), object_line({"0x50", "ARRAY", "", {"0x40"}}),
      object_line({"0x40", "STRING"}), object_line({"0x60", "STRING"}),  // garbage
  }));
  auto path = path_to_root(*heap, index_of(*heap, "0x40"));
  REQUIRE(path);
  CHECK(path->root == "global_tbl");
  REQUIRE(path->path.size() == 2);
  CHECK(heap->address(path->path[0]) == 0x50);
  CHECK(heap->address(path->path[1]) == 0x40);

  auto deep = path_to_root(*heap, index_of(*heap, "0x30"));
  REQUIRE(deep);
  CHECK(deep->root == "vm");
  CHECK(deep->path.size() == 3);

  auto target = path_to_root(*heap, index_of(*heap, "0x10"));
  REQUIRE(target);
  CHECK(target->path.size() == 1);

  auto garbage = path_to_root(*heap, index_of(*heap, "0x60"));
  REQUIRE_FALSE(garbage);
  CHECK(garbage.error().reason == ErrorReason::kNoAnswer);
  CHECK_THAT(garbage.error().message, Catch::Contains("not reachable"));
}

TEST_CASE("a partial dump without ROOT records says so", "[root_paths]") {
  auto heap = load_text(join_lines({object_line({"0x10", "STRING"})}));
  auto path = path_to_root(*heap, 0);
  REQUIRE_FALSE(path);
  CHECK_THAT(path.error().message, Catch::Contains("no ROOT records"));
}

TEST_CASE("a million-long chain needs no recursion", "[root_paths]") {
  std::string text = root_line("vm", {"0x100000"}) + "\n";
  const int n = 200000;
  for (int k = 0; k < n; ++k) {
    text += object_line(
                {format_address(0x100000 + k), "ARRAY", "", {format_address(0x100000 + k + 1)}}) +
            "\n";
  }
  text += object_line({format_address(0x100000 + n), "STRING"}) + "\n";
  auto heap = load_text(text);
  auto path = path_to_root(*heap, heap->size() - 1);
  REQUIRE(path);
  CHECK(path->path.size() == static_cast<std::size_t>(n + 1));
}

// Ruby marks an object's class through its `class` field, which the dump never
// lists among `references`: a singleton class, and what its methods' closures
// hold (ActiveSupport's class_attribute values), hang from the object only by it.
TEST_CASE("the class field is an edge: a singleton class and what it holds are reachable",
          "[root_paths]") {
  auto heap = load_text(join_lines({
      root_line("vm", {"0x10"}),
      object_line({"0x10", "CLASS", "0x40", {"0x20"}, "\"name\":\"Object\""}),
      object_line({"0x20", "CLASS", "0x30", {"0x10"}, "\"name\":\"Job\""}),
      object_line({"0x30", "CLASS", "0x40", {"0x10", "0x20", "0x50"}, "\"singleton\":true"}),
      object_line({"0x40", "CLASS", "", {"0x10"}, "\"name\":\"Class\""}),
      object_line({"0x50", "HASH", "", {"0x70"}}),
      object_line({"0x70", "STRING", ""}),
  }));
  const ObjectIndex hash = index_of(*heap, "0x50");
  auto path = path_to_root(*heap, hash);
  REQUIRE(path);
  std::vector<Address> hops;
  for (ObjectIndex i : path->path) hops.push_back(heap->address(i));
  CHECK(hops == std::vector<Address>{0x10, 0x20, 0x30, 0x50});
  CHECK(heap->root_paths().reachable(index_of(*heap, "0x70")));
  CHECK(heap->root_paths().reachable(index_of(*heap, "0x40")));  // Class, through every class
}

TEST_CASE("the machine stack is the last way in: a path through a constant wins", "[root_paths]") {
  // The stack points straight at 0x30, which the VM reaches in three hops.
  auto heap = load_text(join_lines({
      root_line("machine_context", {"0x30", "0x70"}), root_line("vm", {"0x10"}),
      object_line({"0x10", "OBJECT", "", {"0x20"}}), object_line({"0x20", "OBJECT", "", {"0x30"}}),
      object_line({"0x30", "ARRAY", "", {"0x40"}}), object_line({"0x40", "STRING"}),
      object_line({"0x70", "STRING"}),  // only on the stack
  }));
  auto held = path_to_root(*heap, index_of(*heap, "0x40"));
  REQUIRE(held);
  CHECK(held->root == "vm");
  CHECK(held->path.size() == 4);
  auto stack_only = path_to_root(*heap, index_of(*heap, "0x70"));
  REQUIRE(stack_only);
  CHECK(stack_only->root == "machine_context");
  CHECK(stack_only->path.size() == 1);
}
