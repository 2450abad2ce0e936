#include "core/diagnosis/ownership.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/graph/dominators.h"
#include "core/heap/naming.h"
#include "core/heap/object_key.h"

namespace heapleak {
namespace {

// A 4.0 IMEMO:fields object is part of its owner, which dominates it: the
// owner is named instead, with its retained size (the fields' included).
Owner folded(const Heap& heap, const DominatorTree& tree, Owner owner) {
  if (owner.object == kNoObject || owner.object == DominatorTree::kSuperRoot ||
      !is_fields_object(heap, owner.object))
    return owner;
  const ObjectIndex up = tree.idom(owner.object);
  if (up == kNoObject || up == DominatorTree::kSuperRoot) return owner;
  owner.object = up;
  owner.retained = tree.retained(up);
  return owner;
}

void insert_path(PathTreeNode& node, const Heap& heap, const RootPath& path) {
  ++node.count;
  PathTreeNode* current = &node;
  auto step = [&](std::string key, ObjectIndex example) {
    auto it = std::find_if(current->children.begin(), current->children.end(),
                           [&](const PathTreeNode& child) { return child.key == key; });
    if (it == current->children.end()) {
      current->children.push_back(PathTreeNode{std::move(key), 0, example, {}});
      it = current->children.end() - 1;
    }
    ++it->count;
    current = &*it;
  };
  step("ROOT " + path.root, kNoObject);
  for (ObjectIndex i : path.path) step(object_key(heap, i), i);
}

void sort_tree(PathTreeNode& node) {
  std::sort(node.children.begin(), node.children.end(),
            [](const PathTreeNode& a, const PathTreeNode& b) {
              return a.count != b.count ? a.count > b.count : a.key < b.key;
            });
  for (auto& child : node.children) sort_tree(child);
}

// The set split by the child of the super-root that dominates each part,
// each part with its own lowest common dominator.
std::vector<Owner> owners_of_parts(const Heap& heap, const DominatorTree& tree,
                                   std::span<const ObjectIndex> set) {
  std::map<ObjectIndex, std::vector<ObjectIndex>> parts;
  std::unordered_map<ObjectIndex, ObjectIndex> top_of;  // memo: each chain is walked once
  std::vector<ObjectIndex> chain;
  for (ObjectIndex i : set) {
    chain.clear();
    ObjectIndex top = i;
    for (;;) {
      if (auto known = top_of.find(top); known != top_of.end()) {
        top = known->second;
        break;
      }
      chain.push_back(top);
      if (tree.idom(top) == DominatorTree::kSuperRoot) break;
      top = tree.idom(top);
    }
    for (ObjectIndex x : chain) top_of[x] = top;
    parts[top].push_back(i);
  }
  std::vector<Owner> owners;
  for (const auto& [top, members] : parts) {
    const ObjectIndex owner = tree.common_dominator(members);
    owners.push_back(folded(heap, tree, Owner{owner, tree.retained(owner), members.size()}));
  }
  std::sort(owners.begin(), owners.end(), [](const Owner& a, const Owner& b) {
    return a.objects != b.objects ? a.objects > b.objects : a.retained > b.retained;
  });
  return owners;
}

}  // namespace

std::vector<Owner> owners_of(const Heap& heap, std::span<const ObjectIndex> reachable) {
  const DominatorTree& tree = heap.dominators();
  const ObjectIndex owner = tree.common_dominator(reachable);
  if (owner == kNoObject) return {};
  if (owner != DominatorTree::kSuperRoot)
    return {folded(heap, tree, Owner{owner, tree.retained(owner), reachable.size()})};
  return owners_of_parts(heap, tree, reachable);
}

std::vector<Retainer> top_retainers(const Heap& heap, std::size_t limit) {
  const DominatorTree& tree = heap.dominators();
  // Larger retained first, then lower address: a strict total order, so the
  // answer does not depend on how it is selected.
  auto better = [&](const Retainer& a, const Retainer& b) {
    return a.retained != b.retained ? a.retained > b.retained
                                    : heap.address(a.object) < heap.address(b.object);
  };
  // A few rows (the usual case) are kept in a heap of `limit` entries, worst
  // on top, instead of a 16-byte row per object (570 MB for 35 M objects).
  const bool bounded = limit < heap.size() / 8;
  std::vector<Retainer> all;
  all.reserve(bounded ? limit + 1 : heap.size());
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    // A fields object is counted in its owner's row (it dominates it), never its own.
    if (!tree.reachable(i) || is_fields_object(heap, i)) continue;
    const Retainer row{i, tree.retained(i)};
    if (!bounded) {
      all.push_back(row);
    } else if (all.size() < limit) {
      all.push_back(row);
      std::push_heap(all.begin(), all.end(), better);
    } else if (limit > 0 && better(row, all.front())) {
      std::pop_heap(all.begin(), all.end(), better);
      all.back() = row;
      std::push_heap(all.begin(), all.end(), better);
    }
  }
  if (bounded) {
    std::sort_heap(all.begin(), all.end(), better);
    return all;
  }
  const std::size_t keep = std::min(limit, all.size());
  std::partial_sort(all.begin(), all.begin() + keep, all.end(), better);
  all.resize(keep);
  return all;
}

std::vector<ClassRetention> top_retainers_by_class(const Heap& heap, std::size_t limit) {
  std::vector<ClassRetention> by_id = class_retention(heap, object_keys(heap));
  std::erase_if(by_id, [](const ClassRetention& row) { return row.count == 0; });
  std::sort(by_id.begin(), by_id.end(), [](const ClassRetention& a, const ClassRetention& b) {
    return a.retained != b.retained ? a.retained > b.retained : a.key < b.key;
  });
  if (by_id.size() > limit) by_id.resize(limit);
  return by_id;
}

std::vector<ClassRetention> class_retention(const Heap& heap, const ObjectKeys& keys) {
  const DominatorTree& tree = heap.dominators();
  const std::size_t n = heap.size();
  // An object's retained size counts for its class unless an object of the
  // same class dominates it (a linked list counts once, at its head). One
  // depth-first walk of the dominator tree, keeping how many objects of each
  // class are on the current branch, decides that for every object.
  std::vector<ClassRetention> by_id;
  by_id.reserve(keys.names.size());
  for (const auto& name : keys.names) by_id.push_back(ClassRetention{name, 0, 0});
  Column<std::uint32_t> key_of(n, 0);
  for (ObjectIndex i = 0; i < n; ++i) {
    if (!tree.reachable(i)) continue;
    // A 4.0 fields object takes its owner's key, not a count of its own: the
    // owner dominates it, so its bytes count once, in the owner's row.
    if (is_fields_object(heap, i)) {
      const ObjectIndex owner = fields_owner(heap, i);
      if (owner != kNoObject && tree.reachable(owner)) {
        key_of[i] = keys.of[owner];
        continue;
      }
    }
    key_of[i] = keys.of[i];
    ++by_id[key_of[i]].count;
  }
  // Children lists of the dominator tree (CSR), the super-root's last.
  Column<std::uint32_t> first_child(n + 2, 0);
  for (ObjectIndex i = 0; i < n; ++i) {
    if (!tree.reachable(i)) continue;
    const ObjectIndex parent = tree.idom(i) == DominatorTree::kSuperRoot ? n : tree.idom(i);
    ++first_child[parent + 1];
  }
  for (std::size_t k = 0; k <= n; ++k) first_child[k + 1] += first_child[k];
  Column<ObjectIndex> children(first_child[n + 1]);
  {
    Column<std::uint32_t> cursor(first_child.begin(), first_child.end() - 1);
    for (ObjectIndex i = 0; i < n; ++i) {
      if (!tree.reachable(i)) continue;
      const ObjectIndex parent = tree.idom(i) == DominatorTree::kSuperRoot ? n : tree.idom(i);
      children[cursor[parent]++] = i;
    }
  }
  std::vector<std::uint32_t> on_branch(by_id.size(), 0);
  struct Frame {
    ObjectIndex node;  // n: the super-root
    std::uint32_t next;
  };
  std::vector<Frame> stack{{static_cast<ObjectIndex>(n), first_child[n]}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == first_child[top.node + 1]) {
      if (top.node != n) --on_branch[key_of[top.node]];
      stack.pop_back();
      continue;
    }
    const ObjectIndex child = children[top.next++];
    if (on_branch[key_of[child]] == 0) by_id[key_of[child]].retained += tree.retained(child);
    ++on_branch[key_of[child]];
    stack.push_back(Frame{child, first_child[child]});
  }
  return by_id;
}

OwnerReport find_owner(const Heap& heap, std::span<const ObjectIndex> objects,
                       std::size_t max_paths) {
  const DominatorTree& tree = heap.dominators();
  OwnerReport report;
  for (ObjectIndex i : objects) (tree.reachable(i) ? report.set : report.unreachable).push_back(i);
  report.merged_paths.key = "GC roots";
  if (report.set.empty()) return report;

  const ObjectIndex owner = tree.common_dominator(report.set);
  if (owner != DominatorTree::kSuperRoot) {
    report.owner = folded(heap, tree, Owner{owner, tree.retained(owner), report.set.size()});
    report.owners.push_back(report.owner);
  } else {
    report.owners = owners_of_parts(heap, tree, report.set);
  }
  const ObjectIndex first = report.owners.front().object;
  report.owner_path = heap.root_paths().path_to(heap, first);

  const RootPaths& paths = heap.root_paths();
  const std::size_t step = std::max<std::size_t>(1, report.set.size() / max_paths);
  for (std::size_t k = 0; k < report.set.size(); k += step) {
    RootPath path = paths.path_to(heap, report.set[k]);
    if (!path.path.empty()) insert_path(report.merged_paths, heap, path);
  }
  sort_tree(report.merged_paths);
  return report;
}

std::vector<DuplicateStrings> duplicate_strings(const Heap& heap, std::size_t limit,
                                                std::size_t samples) {
  // Most strings are unique, so a map entry per distinct value cost ~70 bytes
  // per string (the peak of `top` on a 10 GB dump). Instead: one 8-byte
  // (value hash, memsize) word per string, sorted, so equal values are runs;
  // the best `limit` runs are kept, then their samples are found in a
  // second pass.
  Column<std::uint64_t> strings;
  std::size_t string_count = 0;
  for (ObjectIndex i = 0; i < heap.size(); ++i)
    string_count += heap.type(i) == ObjectType::kString && heap.value_hash(i) != 0;
  strings.reserve(string_count);
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    if (heap.type(i) != ObjectType::kString || heap.value_hash(i) == 0) continue;
    strings.push_back(std::uint64_t{heap.value_hash(i)} << 32 | heap.memsize(i));
  }
  std::sort(strings.begin(), strings.end());
  // Most wasted first, then most copies, then by hash: a total order.
  auto better = [](const DuplicateStrings& a, const DuplicateStrings& b) {
    if (a.wasted != b.wasted) return a.wasted > b.wasted;
    if (a.count != b.count) return a.count > b.count;
    return a.value_hash < b.value_hash;
  };
  std::vector<DuplicateStrings> out;  // a heap of the best `limit`, worst on top
  for (std::size_t k = 0; k < strings.size();) {
    DuplicateStrings entry;
    entry.value_hash = static_cast<std::uint32_t>(strings[k] >> 32);
    for (; k < strings.size() && (strings[k] >> 32) == entry.value_hash; ++k) {
      ++entry.count;
      entry.memsize += static_cast<std::uint32_t>(strings[k]);
    }
    if (entry.count < 2 || limit == 0) continue;
    entry.wasted = entry.memsize - entry.memsize / entry.count;
    if (out.size() < limit) {
      out.push_back(std::move(entry));
      std::push_heap(out.begin(), out.end(), better);
    } else if (better(entry, out.front())) {
      std::pop_heap(out.begin(), out.end(), better);
      out.back() = std::move(entry);
      std::push_heap(out.begin(), out.end(), better);
    }
  }
  Column<std::uint64_t>().swap(strings);
  std::sort_heap(out.begin(), out.end(), better);
  // Samples: the first objects of each kept value, in heap order.
  std::unordered_map<std::uint32_t, DuplicateStrings*> kept;
  for (auto& entry : out) kept.emplace(entry.value_hash, &entry);
  for (ObjectIndex i = 0; samples > 0 && i < heap.size() && !kept.empty(); ++i) {
    if (heap.type(i) != ObjectType::kString || heap.value_hash(i) == 0) continue;
    auto it = kept.find(heap.value_hash(i));
    if (it == kept.end()) continue;
    it->second->samples.push_back(i);
    if (it->second->samples.size() >= samples) kept.erase(it);
  }
  return out;
}

}  // namespace heapleak
