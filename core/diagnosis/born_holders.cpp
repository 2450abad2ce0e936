#include "core/diagnosis/born_holders.h"

#include <unordered_map>
#include <unordered_set>

#include "core/diagnosis/growth_verdict.h"
#include "core/graph/root_paths.h"
#include "core/heap/naming.h"

namespace heapleak {
namespace {

// Read as growth_of reads a holder (length, else references), at its address in C.
bool grows_to_later(const Heap& target, ObjectIndex i, const Counterparts& later) {
  const auto b = size_in_dump(target, i, target);
  const auto c = size_in_dump(target, i, later);
  return b && c && *c > *b;
}

// What a program keeps things in: an Array, a Hash, an object gaining ivars
// or a Struct; not a String (a buffer), a Proc or VM internals.
bool container(const Heap& heap, ObjectIndex i) {
  switch (heap.type(i)) {
    case ObjectType::kArray:
    case ObjectType::kHash:
    case ObjectType::kObject:
    case ObjectType::kStruct:
      return !is_vm_internal(heap, i);
    default:
      return false;
  }
}

// The leaked containers `anchor` gained that grow from B to C.
std::vector<ObjectIndex> grown_new_containers(const Counterparts& baseline, const Heap& target,
                                              const Counterparts& later,
                                              std::span<const char> leaked, ObjectIndex anchor) {
  std::vector<ObjectIndex> found;
  std::size_t looked = 0;
  const auto consider = [&](ObjectIndex r) {
    if (leaked[r] && container(target, r) && grows_to_later(target, r, later) &&
        gained_after(baseline, target, anchor, r))
      found.push_back(r);
  };
  for (ObjectIndex r : target.references(anchor)) {
    if (++looked > 4096) break;  // a huge holder: its own size says enough
    if (!leaked[r]) continue;
    if (is_fields_object(target, r)) {  // 4.0: the ivars live in a fields object
      for (ObjectIndex f : target.references(r)) consider(f);
    } else {
      consider(r);
    }
  }
  return found;
}

}  // namespace

void adopt_born_holders(const Counterparts& baseline, const Heap& target, const Counterparts& later,
                        std::span<const char> leaked, std::span<const ObjectIndex> objects,
                        std::span<ObjectIndex> holder_of, ObjectIndex first_mark) {
  if (!target.has_edges()) return;
  std::unordered_set<ObjectIndex> judged, anchors, born;
  for (ObjectIndex x : objects) {
    const ObjectIndex anchor = holder_of[x];
    if (anchor >= first_mark || !judged.insert(anchor).second) continue;
    if (grows_to_later(target, anchor, later)) continue;  // it grows: it is the holder
    const auto found = grown_new_containers(baseline, target, later, leaked, anchor);
    if (found.empty()) continue;
    anchors.insert(anchor);
    born.insert(found.begin(), found.end());
  }
  if (born.empty()) return;
  // Each leaked object of those anchors: the born container on its way up, if any.
  const RootPaths& paths = target.root_paths();
  std::unordered_map<ObjectIndex, ObjectIndex> memo;
  std::vector<ObjectIndex> chain;
  for (ObjectIndex x : objects) {
    const ObjectIndex anchor = holder_of[x];
    if (anchor >= first_mark || !anchors.contains(anchor)) continue;
    chain.clear();
    ObjectIndex answer = kNoObject;
    for (ObjectIndex y = x;;) {
      if (born.contains(y)) {
        answer = y;
        break;
      }
      if (const auto it = memo.find(y); it != memo.end()) {
        answer = it->second;
        break;
      }
      chain.push_back(y);
      const ObjectIndex parent = paths.reachable(y) ? paths.parent(y) : kNoObject;
      if (parent == kNoObject || parent == anchor || !leaked[parent]) break;
      y = parent;
    }
    for (ObjectIndex y : chain) memo[y] = answer;
    if (answer != kNoObject) holder_of[x] = answer;
  }
}

}  // namespace heapleak
