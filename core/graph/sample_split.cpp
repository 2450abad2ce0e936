#include "core/graph/sample_split.h"

#include <algorithm>
#include <map>

#include "core/graph/root_paths.h"
#include "core/heap/naming.h"

namespace heapleak {
namespace {

bool is_container(const Heap& heap, ObjectIndex i) {
  if (is_vm_internal(heap, i)) return false;
  switch (heap.type(i)) {
    case ObjectType::kArray:
    case ObjectType::kHash:
    case ObjectType::kObject:
    case ObjectType::kStruct:
    case ObjectType::kClass:
    case ObjectType::kModule:
    case ObjectType::kData:
      return true;
    default:
      return false;
  }
}

std::size_t depth_of(const RootPaths& paths, ObjectIndex i) {
  std::size_t depth = 0;
  for (ObjectIndex y = i; y != kNoObject; y = paths.parent(y)) ++depth;
  return depth;
}

// The Array or Hash that holds the sample, when one does: a sample a local
// variable or a VM structure also references is still in its collection,
// whatever the shortest path says. Else the shortest path's parent.
ObjectIndex holding_collection(const Heap& heap, ObjectIndex sample) {
  const RootPaths& paths = heap.root_paths();
  ObjectIndex best = kNoObject;
  std::size_t best_depth = SIZE_MAX;
  for (ObjectIndex referrer : heap.referrers(sample)) {
    const ObjectType type = heap.type(referrer);
    if ((type != ObjectType::kArray && type != ObjectType::kHash) || referrer == sample ||
        is_vm_internal(heap, referrer) || !paths.reachable(referrer))
      continue;
    const std::size_t depth = depth_of(paths, referrer);
    if (depth < best_depth) {
      best = referrer;
      best_depth = depth;
    }
  }
  return best != kNoObject ? best : paths.parent(sample);
}

// Containers on the sample's root path, from the root side down, without the sample.
std::vector<ObjectIndex> containers_above(const Heap& heap, ObjectIndex sample) {
  const RootPaths& paths = heap.root_paths();
  std::vector<ObjectIndex> chain;
  for (ObjectIndex y = holding_collection(heap, sample); y != kNoObject; y = paths.parent(y)) {
    if (is_container(heap, y)) chain.push_back(y);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::size_t common_prefix(const std::vector<const std::vector<ObjectIndex>*>& chains) {
  if (chains.empty()) return 0;
  std::size_t length = chains.front()->size();
  for (const auto* chain : chains) {
    std::size_t k = 0;
    while (k < length && k < chain->size() && (*chain)[k] == (*chains.front())[k]) ++k;
    length = k;
  }
  return length;
}

}  // namespace

SampleSplit split_samples(const Heap& heap, std::span<const ObjectIndex> samples) {
  SampleSplit out;
  if (!heap.has_edges() || samples.size() < 2) return out;
  const RootPaths& paths = heap.root_paths();
  std::vector<std::vector<ObjectIndex>> chains(samples.size());
  std::vector<const std::vector<ObjectIndex>*> reachable;
  SampleGroup unreachable;
  for (std::size_t k = 0; k < samples.size(); ++k) {
    if (!paths.reachable(samples[k])) {
      unreachable.samples.push_back(samples[k]);
      continue;
    }
    chains[k] = containers_above(heap, samples[k]);
    reachable.push_back(&chains[k]);
  }
  const std::size_t meet = common_prefix(reachable);
  // Group by the container just below the meeting point (the sample itself
  // when it hangs straight off it), in order of first appearance.
  std::map<ObjectIndex, std::size_t> slot;
  std::vector<std::vector<std::size_t>> members;
  for (std::size_t k = 0; k < samples.size(); ++k) {
    if (!paths.reachable(samples[k])) continue;
    const ObjectIndex child = chains[k].size() > meet ? chains[k][meet] : samples[k];
    auto [it, inserted] = slot.try_emplace(child, members.size());
    if (inserted) members.emplace_back();
    members[it->second].push_back(k);
  }
  const bool some_shared =
      std::any_of(members.begin(), members.end(), [](const auto& m) { return m.size() >= 2; });
  const std::size_t group_count = members.size() + (unreachable.samples.empty() ? 0 : 1);
  out.split = group_count >= 2 && (some_shared || !unreachable.samples.empty());
  if (!out.split) return out;
  for (const auto& group : members) {
    std::vector<const std::vector<ObjectIndex>*> group_chains;
    SampleGroup answer;
    for (std::size_t k : group) {
      group_chains.push_back(&chains[k]);
      answer.samples.push_back(samples[k]);
    }
    const std::size_t depth = common_prefix(group_chains);
    if (depth > 0) answer.container = chains[group.front()][depth - 1];
    out.groups.push_back(std::move(answer));
  }
  if (!unreachable.samples.empty()) out.groups.push_back(std::move(unreachable));
  std::stable_sort(out.groups.begin(), out.groups.end(),
                   [](const SampleGroup& a, const SampleGroup& b) {
                     return a.samples.size() > b.samples.size();
                   });
  return out;
}

}  // namespace heapleak
