#include "core/graph/dominator_subtree.h"

#include <algorithm>
#include <unordered_map>

namespace heapleak {

namespace {

// Keeps the biggest `limit` children of at least `min_bytes` and folds the
// rest into the node's `other` counts.
void keep_children(const DominatorTree& tree, DominatorSubtreeNode& node,
                   std::vector<ObjectIndex>& kids, const DominatorSubtreeOptions& options) {
  std::sort(kids.begin(), kids.end(), [&](ObjectIndex a, ObjectIndex b) {
    if (tree.retained(a) != tree.retained(b)) return tree.retained(a) > tree.retained(b);
    return a < b;  // ties by address: objects are sorted by address
  });
  node.expanded = true;
  node.child_count = static_cast<std::uint32_t>(kids.size());
  const std::size_t limit = options.limit == 0 ? kids.size() : options.limit;
  for (ObjectIndex kid : kids) {
    if (node.children.size() < limit && tree.retained(kid) >= options.min_bytes) {
      DominatorSubtreeNode child;
      child.object = kid;
      child.retained = tree.retained(kid);
      node.children.push_back(std::move(child));
    } else {
      ++node.other_count;
      node.other_retained += tree.retained(kid);
    }
  }
}

}  // namespace

DominatorSubtreeNode dominator_subtree(const Heap& heap, ObjectIndex root,
                                       const DominatorSubtreeOptions& options) {
  const DominatorTree& tree = heap.dominators();
  const auto n = static_cast<ObjectIndex>(heap.size());
  DominatorSubtreeNode top;
  top.object = root;
  if (root != DominatorTree::kSuperRoot) {
    top.retained = tree.retained(root);
    if (!tree.reachable(root)) {
      top.expanded = true;  // outside the tree: it dominates nothing
      return top;
    }
  } else {
    for (ObjectIndex i = 0; i < n; ++i) {
      if (tree.reachable(i) && tree.idom(i) == DominatorTree::kSuperRoot) {
        top.retained += tree.retained(i);
      }
    }
  }

  std::vector<DominatorSubtreeNode*> level{&top};
  std::size_t nodes = 1;
  for (std::size_t d = 0; d < options.depth && !level.empty() && nodes < options.max_nodes; ++d) {
    std::unordered_map<ObjectIndex, std::size_t> slot;
    slot.reserve(level.size() * 2);
    for (std::size_t k = 0; k < level.size(); ++k) slot.emplace(level[k]->object, k);
    std::vector<std::vector<ObjectIndex>> kids(level.size());
    const bool single = level.size() == 1;
    for (ObjectIndex i = 0; i < n; ++i) {
      if (!tree.reachable(i)) continue;
      const ObjectIndex parent = tree.idom(i);
      if (single) {
        if (parent == level[0]->object) kids[0].push_back(i);
      } else if (auto it = slot.find(parent); it != slot.end()) {
        kids[it->second].push_back(i);
      }
    }
    std::vector<DominatorSubtreeNode*> next;
    for (std::size_t k = 0; k < level.size(); ++k) {
      keep_children(tree, *level[k], kids[k], options);
      nodes += level[k]->children.size();
      for (auto& child : level[k]->children) next.push_back(&child);
    }
    level = std::move(next);
  }
  return top;
}

}  // namespace heapleak
