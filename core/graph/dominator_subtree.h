// The top levels of one dominator subtree, for a treemap: the objects a node
// immediately dominates, biggest retained first, down to a given depth. The
// tree keeps only immediate dominators (no child lists, to stay small), so
// each level is one pass over the heap collecting the children of that
// level's nodes; a client zooming in asks again from a deeper node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/graph/dominators.h"
#include "core/heap/heap.h"

namespace heapleak {

struct DominatorSubtreeOptions {
  std::size_t depth = 2;          // levels of children below the root (>= 1)
  std::uint64_t min_bytes = 0;    // children retaining less are folded into `other`
  std::size_t limit = 50;         // children kept per node, biggest first (0: all)
  std::size_t max_nodes = 5'000;  // no further level is expanded once this many nodes exist
};

struct DominatorSubtreeNode {
  ObjectIndex object = kNoObject;  // DominatorTree::kSuperRoot for the tree's top
  std::uint64_t retained = 0;
  // Children were collected (depth and max_nodes allowed it); when false the
  // counts below are unknown and `children` is empty.
  bool expanded = false;
  std::uint32_t child_count = 0;     // every child, shown or not
  std::uint32_t other_count = 0;     // children not shown (limit, min_bytes)
  std::uint64_t other_retained = 0;  // and what they retain
  std::vector<DominatorSubtreeNode> children;
};

// `root` is an object of `heap` or DominatorTree::kSuperRoot (every GC root
// below it; its retained size is every reachable byte). An unreachable root
// has no children.
DominatorSubtreeNode dominator_subtree(const Heap& heap, ObjectIndex root,
                                       const DominatorSubtreeOptions& options);

}  // namespace heapleak
