// dominator_subtree: children are the immediately dominated objects, biggest
// retained first; limit and minBytes fold the rest into `other`; depth and
// max_nodes stop the expansion; unreachable roots dominate nothing.
#include "core/graph/dominator_subtree.h"

#include <catch2/catch.hpp>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// ROOT vm -> a, f. a -> b, c, d (d also reached from b: still a's child).
// b -> e. f alone. u unreachable.
//   memsize: a 10, b 100, c 20, d 5, e 1000, f 7, u 3
std::shared_ptr<const Heap> sample_heap() {
  auto obj = [](const char* address, std::vector<std::string> refs, int memsize) {
    return object_line(
        {address, "ARRAY", "", std::move(refs), "\"memsize\":" + std::to_string(memsize)});
  };
  return load_text(join_lines({
      root_line("vm", {"0xa0", "0xf0"}),
      obj("0xa0", {"0xb0", "0xc0", "0xd0"}, 10),
      obj("0xb0", {"0xe0", "0xd0"}, 100),
      obj("0xc0", {}, 20),
      obj("0xd0", {}, 5),
      obj("0xe0", {}, 1000),
      obj("0xf0", {}, 7),
      obj("0x100", {"0xc0"}, 3),
  }));
}

std::vector<std::string> addresses(const Heap& heap, const DominatorSubtreeNode& node) {
  std::vector<std::string> out;
  for (const auto& child : node.children) out.push_back(format_address(heap.address(child.object)));
  return out;
}

}  // namespace

TEST_CASE("the super-root's subtree, two levels, biggest first", "[dominator_subtree]") {
  auto heap = sample_heap();
  DominatorSubtreeNode top = dominator_subtree(*heap, DominatorTree::kSuperRoot, {});
  CHECK(top.object == DominatorTree::kSuperRoot);
  CHECK(top.expanded);
  CHECK(top.retained == 10 + 100 + 20 + 5 + 1000 + 7);  // every reachable byte, not u's
  CHECK(addresses(*heap, top) == std::vector<std::string>{"0xa0", "0xf0"});
  CHECK(top.child_count == 2);
  CHECK(top.other_count == 0);
  const auto& a = top.children[0];
  CHECK(a.retained == 1135);
  CHECK(a.expanded);
  CHECK(addresses(*heap, a) == std::vector<std::string>{"0xb0", "0xc0", "0xd0"});
  CHECK(a.children[0].retained == 1100);
  // depth 2: the third level is not collected
  CHECK_FALSE(a.children[0].expanded);
  CHECK(a.children[0].children.empty());
}

TEST_CASE("limit and min_bytes fold children into other", "[dominator_subtree]") {
  auto heap = sample_heap();
  const ObjectIndex a = index_of(*heap, "0xa0");
  DominatorSubtreeOptions options;
  options.depth = 1;
  options.limit = 1;
  DominatorSubtreeNode node = dominator_subtree(*heap, a, options);
  CHECK(addresses(*heap, node) == std::vector<std::string>{"0xb0"});
  CHECK(node.child_count == 3);
  CHECK(node.other_count == 2);
  CHECK(node.other_retained == 25);

  options.limit = 0;  // all
  options.min_bytes = 10;
  node = dominator_subtree(*heap, a, options);
  CHECK(addresses(*heap, node) == std::vector<std::string>{"0xb0", "0xc0"});
  CHECK(node.other_count == 1);
  CHECK(node.other_retained == 5);
}

TEST_CASE("deeper levels, max_nodes and unreachable roots", "[dominator_subtree]") {
  auto heap = sample_heap();
  DominatorSubtreeOptions options;
  options.depth = 3;
  DominatorSubtreeNode top = dominator_subtree(*heap, DominatorTree::kSuperRoot, options);
  const auto& b = top.children[0].children[0];
  REQUIRE(b.expanded);
  CHECK(addresses(*heap, b) == std::vector<std::string>{"0xe0"});
  CHECK_FALSE(b.children[0].expanded);  // e is at depth 3: its children are not looked at
  const auto& f = top.children[1];
  CHECK(f.expanded);  // a leaf above the last level: looked at, none
  CHECK(f.child_count == 0);

  options.max_nodes = 2;  // the first level already holds 3 nodes
  top = dominator_subtree(*heap, DominatorTree::kSuperRoot, options);
  CHECK(top.expanded);
  CHECK_FALSE(top.children[0].expanded);

  const ObjectIndex u = index_of(*heap, "0x100");
  DominatorSubtreeNode garbage = dominator_subtree(*heap, u, {});
  CHECK(garbage.expanded);
  CHECK(garbage.children.empty());
  CHECK(garbage.retained == 3);
}
