#include "core/dominators.h"

#include <algorithm>

namespace heapleak {
namespace {

// Vertices are numbered by DFS preorder: 0 is the super-root, 1.. the
// objects reached. The arrays below are indexed by that number.
// Semi-dominators come from Lengauer-Tarjan's eval/link with path
// compression; immediate dominators from Semi-NCA (walk up from the DFS
// parent until below the semi-dominator), which needs no buckets: five
// uint32_t arrays at the peak instead of eight.
struct SemiNca {
  // Columns, not vectors: freeing them must give the memory back at once
  // (glibc keeps freed mid-sized blocks), so the peak stays low.
  Column<std::uint32_t> parent;  // DFS parent; becomes the idom
  Column<std::uint32_t> semi, ancestor, label;
  Column<ObjectIndex> vertex;  // number -> object (vertex[0] unused)

  // eval() with path compression, iteratively: walk up to the forest root
  // collecting the path, then compress it from the top down.
  std::vector<std::uint32_t> path;
  std::uint32_t eval(std::uint32_t v) {
    if (ancestor[v] == UINT32_MAX) return v;
    path.clear();
    for (std::uint32_t u = v; ancestor[ancestor[u]] != UINT32_MAX; u = ancestor[u])
      path.push_back(u);
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const std::uint32_t u = *it;
      const std::uint32_t a = ancestor[u];
      if (semi[label[a]] < semi[label[u]]) label[u] = label[a];
      ancestor[u] = ancestor[a];
    }
    return label[v];
  }
};

}  // namespace

DominatorTree::DominatorTree(const Heap& heap) {
  const std::size_t n = heap.size();
  preorder_.assign(n, kUnvisited);

  SemiNca lt;
  lt.vertex.reserve(n + 1);  // growing by doubling would touch 3x the memory
  lt.parent.reserve(n + 1);
  lt.vertex.push_back(kSuperRoot);
  lt.parent.push_back(0);
  // Iterative DFS: the super-root's children are the root targets, in
  // category order; an object's children are its references.
  Column<std::uint8_t> is_root_target(n, 0);
  std::vector<ObjectIndex> root_targets;
  for (const auto& root : heap.roots()) {
    for (ObjectIndex t : root.targets) {
      if (!is_root_target[t]) root_targets.push_back(t);
      is_root_target[t] = 1;
    }
  }
  struct Frame {
    std::uint32_t number;
    std::span<const ObjectIndex> children;
    std::size_t next;
  };
  std::vector<Frame> stack;
  stack.push_back(Frame{0, root_targets, 0});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.children.size()) {
      stack.pop_back();
      continue;
    }
    const ObjectIndex child = top.children[top.next++];
    if (preorder_[child] != kUnvisited) continue;
    const auto number = static_cast<std::uint32_t>(lt.vertex.size());
    preorder_[child] = number;
    lt.vertex.push_back(child);
    lt.parent.push_back(top.number);
    stack.push_back(Frame{number, heap.references(child), 0});
  }
  const std::size_t count = lt.vertex.size();  // super-root included
  reachable_ = count - 1;

  lt.semi.resize(count);
  lt.label.resize(count);
  for (std::uint32_t v = 0; v < count; ++v) lt.semi[v] = lt.label[v] = v;
  lt.ancestor.assign(count, UINT32_MAX);

  for (std::uint32_t w = static_cast<std::uint32_t>(count) - 1; w >= 1; --w) {
    const ObjectIndex object = lt.vertex[w];
    auto consider = [&](std::uint32_t v) {
      const std::uint32_t u = lt.eval(v);
      if (lt.semi[u] < lt.semi[w]) lt.semi[w] = lt.semi[u];
    };
    if (is_root_target[object]) consider(0);
    for (ObjectIndex referrer : heap.referrers(object)) {
      if (preorder_[referrer] != kUnvisited) consider(preorder_[referrer]);
    }
    lt.ancestor[w] = lt.parent[w];  // link(parent, w)
  }
  Column<std::uint32_t>().swap(lt.ancestor);
  Column<std::uint32_t>().swap(lt.label);
  Column<std::uint8_t>().swap(is_root_target);
  // Allocated only now, after the search arrays are freed: the peak stays
  // near 30 bytes per object instead of 45.
  idom_.assign(n, kNoObject);
  retained_.assign(n, 0);
  // Semi-NCA: idom(w) is the nearest ancestor of w's DFS parent, in the
  // dominator tree built so far, whose number is at most semi(w).
  Column<std::uint32_t>& idom = lt.parent;
  for (std::uint32_t w = 1; w < count; ++w) {
    std::uint32_t candidate = idom[w];
    while (candidate > lt.semi[w]) candidate = idom[candidate];
    idom[w] = candidate;
  }

  for (std::uint32_t w = 1; w < count; ++w) {
    idom_[lt.vertex[w]] = idom[w] == 0 ? kSuperRoot : lt.vertex[idom[w]];
  }
  // Retained sizes: children before parents, i.e. reverse preorder.
  for (ObjectIndex i = 0; i < n; ++i) retained_[i] = heap.memsize(i);
  for (std::uint32_t w = static_cast<std::uint32_t>(count) - 1; w >= 1; --w) {
    const ObjectIndex object = lt.vertex[w];
    if (idom_[object] != kSuperRoot) retained_[idom_[object]] += retained_[object];
  }
  for (ObjectIndex i = 0; i < n; ++i) {
    if (preorder_[i] == kUnvisited) unreachable_bytes_ += heap.memsize(i);
  }
}

DominatorTree::DominatorTree(Column<std::uint32_t> preorder, Column<ObjectIndex> idom,
                             Column<std::uint64_t> retained, std::size_t reachable,
                             std::uint64_t unreachable_bytes)
    : preorder_(std::move(preorder)),
      idom_(std::move(idom)),
      retained_(std::move(retained)),
      reachable_(reachable),
      unreachable_bytes_(unreachable_bytes) {}

ObjectIndex DominatorTree::lca(ObjectIndex a, ObjectIndex b) const {
  // A dominator always has a smaller preorder number than what it dominates.
  while (a != b) {
    if (a == kSuperRoot || b == kSuperRoot) return kSuperRoot;
    if (preorder_[a] > preorder_[b]) {
      a = idom_[a];
    } else {
      b = idom_[b];
    }
  }
  return a;
}

ObjectIndex DominatorTree::common_dominator(std::span<const ObjectIndex> objects) const {
  ObjectIndex common = kNoObject;
  for (ObjectIndex i : objects) {
    if (!reachable(i)) continue;
    common = common == kNoObject ? i : lca(common, i);
    if (common == kSuperRoot) break;
  }
  return common;
}

bool DominatorTree::dominates(ObjectIndex a, ObjectIndex b) const {
  if (!reachable(b)) return a == b;
  for (ObjectIndex x = b; x != kSuperRoot && x != kNoObject; x = idom_[x]) {
    if (x == a) return true;
    if (a != kSuperRoot && preorder_[x] < preorder_[a]) return false;
  }
  return a == kSuperRoot;
}

std::size_t DominatorTree::bytes_used() const {
  return preorder_.size() * sizeof(std::uint32_t) + idom_.size() * sizeof(ObjectIndex) +
         retained_.size() * sizeof(std::uint64_t);
}

}  // namespace heapleak
