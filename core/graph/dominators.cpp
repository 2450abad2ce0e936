#include "core/graph/dominators.h"

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
  // semi doubles as the DFS's cursor (the next reference to follow of each
  // vertex on the current branch) before it holds semi-dominators: the DFS
  // needs no stack of its own, so a chain millions long costs nothing extra.
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

// One bit per object: is it a GC root target (a child of the super-root)?
class BitSet {
 public:
  explicit BitSet(std::size_t n) : words_((n + 63) / 64, 0) {}
  void set(std::size_t i) { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool test(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }

 private:
  Column<std::uint64_t> words_;
};

// The reverse of Heap::class_edge: each class's instances, in CSR form over
// the classes only (a sorted list of them, found by binary search), so it
// costs 4 bytes per object with a class, and is freed with the search arrays.
class Instances {
 public:
  explicit Instances(const Heap& heap) {
    const std::size_t n = heap.size();
    std::vector<bool> is_class(n, false);
    for (ObjectIndex i = 0; i < n; ++i) {
      if (const ObjectIndex k = heap.class_edge(i); k != kNoObject) is_class[k] = true;
    }
    for (ObjectIndex i = 0; i < n; ++i) {
      if (is_class[i]) classes_.push_back(i);
    }
    offsets_.assign(classes_.size() + 1, 0);
    for (ObjectIndex i = 0; i < n; ++i) {
      if (const ObjectIndex k = heap.class_edge(i); k != kNoObject) ++offsets_[slot(k) + 1];
    }
    for (std::size_t c = 0; c < classes_.size(); ++c) offsets_[c + 1] += offsets_[c];
    members_.resize(offsets_.back());
    std::vector<std::uint32_t> cursor(offsets_.begin(), offsets_.end() - 1);
    for (ObjectIndex i = 0; i < n; ++i) {
      if (const ObjectIndex k = heap.class_edge(i); k != kNoObject) members_[cursor[slot(k)]++] = i;
    }
  }
  std::span<const ObjectIndex> of(ObjectIndex klass) const {
    auto it = std::lower_bound(classes_.begin(), classes_.end(), klass);
    if (it == classes_.end() || *it != klass) return {};
    const std::size_t c = static_cast<std::size_t>(it - classes_.begin());
    return std::span(members_).subspan(offsets_[c], offsets_[c + 1] - offsets_[c]);
  }

 private:
  std::size_t slot(ObjectIndex klass) const {
    return static_cast<std::size_t>(std::lower_bound(classes_.begin(), classes_.end(), klass) -
                                    classes_.begin());
  }
  std::vector<ObjectIndex> classes_;
  std::vector<std::uint32_t> offsets_;
  Column<ObjectIndex> members_;
};

}  // namespace

// Peak memory, per object (n objects, all reachable at worst): the search
// holds preorder, vertex, parent, semi, label and ancestor (24 bytes), the
// root-target bits and, while semi-dominators are computed, each class's
// instances (4); label and ancestor are freed before the results are
// allocated, semi and the numbered idoms before retained sizes are, so the
// result phase holds preorder, vertex, idom and retained (20 bytes). What is
// kept is preorder, idom and retained (16).
DominatorTree::DominatorTree(const Heap& heap) {
  const std::size_t n = heap.size();
  preorder_.assign(n, kUnvisited);

  SemiNca lt;
  lt.vertex.reserve(n + 1);  // growing by doubling would touch 3x the memory
  lt.parent.reserve(n + 1);
  lt.semi.reserve(n + 1);
  lt.vertex.push_back(kSuperRoot);
  lt.parent.push_back(0);
  lt.semi.push_back(0);
  BitSet is_root_target(n);
  std::vector<ObjectIndex> root_targets;
  for (const auto& root : heap.roots()) {
    for (ObjectIndex t : root.targets) {
      if (!is_root_target.test(t)) root_targets.push_back(t);
      is_root_target.set(t);
    }
  }
  // Iterative DFS: the super-root's children are the root targets, in
  // category order; an object's children are its references, in order, then
  // its class (Heap::class_edge). The current branch is walked back up
  // through parent; semi[v] is how many of v's children were tried.
  struct Children {
    std::span<const ObjectIndex> refs;
    ObjectIndex klass = kNoObject;
    std::size_t size() const { return refs.size() + (klass != kNoObject); }
    ObjectIndex operator[](std::size_t k) const { return k < refs.size() ? refs[k] : klass; }
  };
  auto children_of = [&](ObjectIndex object) {
    return Children{heap.references(object), heap.class_edge(object)};
  };
  auto children = [&](std::uint32_t v) {
    return v == 0 ? Children{std::span<const ObjectIndex>(root_targets), kNoObject}
                  : children_of(lt.vertex[v]);
  };
  std::uint32_t current = 0;
  Children current_children = children(0);
  while (true) {
    if (lt.semi[current] == current_children.size()) {
      if (current == 0) break;
      current = lt.parent[current];
      current_children = children(current);
      continue;
    }
    const ObjectIndex child = current_children[lt.semi[current]++];
    if (preorder_[child] != kUnvisited) continue;
    const auto number = static_cast<std::uint32_t>(lt.vertex.size());
    preorder_[child] = number;
    lt.vertex.push_back(child);
    lt.parent.push_back(current);
    lt.semi.push_back(0);
    current = number;
    current_children = children_of(child);
  }
  std::vector<ObjectIndex>().swap(root_targets);
  const std::size_t count = lt.vertex.size();  // super-root included
  reachable_ = count - 1;

  lt.label.resize(count);
  for (std::uint32_t v = 0; v < count; ++v) lt.semi[v] = lt.label[v] = v;
  lt.ancestor.assign(count, UINT32_MAX);
  // A class's referrers through `class` are its instances.
  const Instances instances(heap);

  for (std::uint32_t w = static_cast<std::uint32_t>(count) - 1; w >= 1; --w) {
    const ObjectIndex object = lt.vertex[w];
    auto consider = [&](std::uint32_t v) {
      const std::uint32_t u = lt.eval(v);
      if (lt.semi[u] < lt.semi[w]) lt.semi[w] = lt.semi[u];
    };
    if (is_root_target.test(object)) consider(0);
    for (ObjectIndex referrer : heap.referrers(object)) {
      if (preorder_[referrer] != kUnvisited) consider(preorder_[referrer]);
    }
    for (ObjectIndex instance : instances.of(object)) {
      if (preorder_[instance] != kUnvisited) consider(preorder_[instance]);
    }
    lt.ancestor[w] = lt.parent[w];  // link(parent, w)
  }
  Column<std::uint32_t>().swap(lt.ancestor);
  Column<std::uint32_t>().swap(lt.label);
  std::vector<std::uint32_t>().swap(lt.path);
  // Semi-NCA: idom(w) is the nearest ancestor of w's DFS parent, in the
  // dominator tree built so far, whose number is at most semi(w).
  Column<std::uint32_t>& idom = lt.parent;
  for (std::uint32_t w = 1; w < count; ++w) {
    std::uint32_t candidate = idom[w];
    while (candidate > lt.semi[w]) candidate = idom[candidate];
    idom[w] = candidate;
  }
  Column<std::uint32_t>().swap(lt.semi);

  // Allocated only now, after the search arrays are freed, so the results
  // never sit next to them.
  idom_.assign(n, kNoObject);
  for (std::uint32_t w = 1; w < count; ++w) {
    idom_[lt.vertex[w]] = idom[w] == 0 ? kSuperRoot : lt.vertex[idom[w]];
  }
  Column<std::uint32_t>().swap(lt.parent);
  // Retained sizes: children before parents, i.e. reverse preorder.
  retained_.assign(n, 0);
  for (ObjectIndex i = 0; i < n; ++i) retained_[i] = heap.memsize(i);
  for (std::uint32_t w = static_cast<std::uint32_t>(count) - 1; w >= 1; --w) {
    const ObjectIndex object = lt.vertex[w];
    if (idom_[object] != kSuperRoot) retained_[idom_[object]] += retained_[object];
  }
  Column<ObjectIndex>().swap(lt.vertex);
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

// Heap's cache of its tree (core/heap/heap.h): filled here, where the tree is
// known, so the heap model includes no analysis.
const DominatorTree& Heap::dominators() const {
  return dominators_.get<DominatorTree>(
      [this] { return std::make_unique<const DominatorTree>(*this); });
}

void Heap::seed_dominators(std::unique_ptr<const DominatorTree> tree) const {
  dominators_.seed(std::move(tree));
}

}  // namespace heapleak
