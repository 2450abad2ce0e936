#include "core/dominators.h"

#include <algorithm>

namespace heapleak {
namespace {

// Vertices are numbered by DFS preorder: 0 is the super-root, 1.. the
// objects reached. All arrays below are indexed by that number.
struct LengauerTarjan {
  std::vector<std::uint32_t> parent, semi, ancestor, label, idom, bucket_head, bucket_next;
  std::vector<ObjectIndex> vertex;  // number -> object (vertex[0] unused)

  // eval() with path compression, iteratively: walk up to the forest root
  // collecting the path, then compress it from the top down.
  std::vector<std::uint32_t> path;
  std::uint32_t eval(std::uint32_t v) {
    if (ancestor[v] == UINT32_MAX) return v;
    path.clear();
    for (std::uint32_t u = v; ancestor[ancestor[u]] != UINT32_MAX; u = ancestor[u]) path.push_back(u);
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
  idom_.assign(n, kNoObject);
  retained_.assign(n, 0);

  LengauerTarjan lt;
  lt.vertex.push_back(kSuperRoot);
  lt.parent.push_back(0);
  // Iterative DFS: the super-root's children are the root targets, in
  // category order; an object's children are its references.
  std::vector<std::uint8_t> is_root_target(n, 0);
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
  lt.idom.assign(count, 0);
  lt.bucket_head.assign(count, UINT32_MAX);
  lt.bucket_next.assign(count, UINT32_MAX);

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
    const std::uint32_t s = lt.semi[w];
    lt.bucket_next[w] = lt.bucket_head[s];
    lt.bucket_head[s] = w;
    const std::uint32_t p = lt.parent[w];
    lt.ancestor[w] = p;  // link(parent, w)
    for (std::uint32_t v = lt.bucket_head[p]; v != UINT32_MAX; v = lt.bucket_next[v]) {
      const std::uint32_t u = lt.eval(v);
      lt.idom[v] = lt.semi[u] < lt.semi[v] ? u : p;
    }
    lt.bucket_head[p] = UINT32_MAX;
  }
  for (std::uint32_t w = 1; w < count; ++w) {
    if (lt.idom[w] != lt.semi[w]) lt.idom[w] = lt.idom[lt.idom[w]];
  }

  for (std::uint32_t w = 1; w < count; ++w) {
    idom_[lt.vertex[w]] = lt.idom[w] == 0 ? kSuperRoot : lt.vertex[lt.idom[w]];
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
