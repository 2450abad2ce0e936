#include "core/diagnosis/grown_objects.h"

#include <algorithm>
#include <optional>

#include "core/diagnosis/growth_verdict.h"
#include "core/heap/naming.h"

namespace heapleak {
namespace {

bool worth_a_look(const Heap& heap, ObjectIndex i) {
  switch (heap.type(i)) {
    case ObjectType::kString:
      return heap.length(i).value_or(0) >= kGrownMinBytes;
    case ObjectType::kArray:
    case ObjectType::kHash:
      return heap.length(i).value_or(0) >= kGrownMinEntries;
    default:
      return false;
  }
}

// The same container in `other` (present there): the diff's match, else
// the object at the same address when same_container says so.
bool counterpart(const Counterparts& other, ObjectIndex i, bool matched) {
  return matched || other.same_container(i);
}

}  // namespace

std::vector<GrownObject> grown_objects(const Counterparts& baseline, const Heap& target,
                                       const Counterparts& later, std::span<const char> in_baseline,
                                       std::span<const char> in_later) {
  std::vector<GrownObject> out;
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    // Hidden and VM objects (no class: finalizer tables, symbol tables) are the VM's own.
    if (!worth_a_look(target, i) || target.class_index(i) == kNoObject || is_vm_internal(target, i))
      continue;
    if (!counterpart(baseline, i, in_baseline[i]) || !counterpart(later, i, in_later[i])) continue;
    const auto sa = baseline.length(target, i), sb = target.length(i), sc = later.length(target, i);
    if (!sa || !sb || !sc || !(*sa < *sb && *sb < *sc)) continue;
    const bool string = target.type(i) == ObjectType::kString;
    if (*sc - *sa < (string ? kGrownMinBytes : kGrownMinEntries)) continue;
    out.push_back(GrownObject{i,
                              string                                ? "bytesize"
                              : target.type(i) == ObjectType::kHash ? "size"
                                                                    : "length",
                              *sa, *sb, *sc, baseline.memsize(target, i), target.memsize(i),
                              later.memsize(target, i)});
  }
  std::sort(out.begin(), out.end(), [](const GrownObject& x, const GrownObject& y) {
    const auto gx = x.bytes_later - std::min(x.bytes_later, x.bytes_baseline);
    const auto gy = y.bytes_later - std::min(y.bytes_later, y.bytes_baseline);
    return gx != gy ? gx > gy : x.object < y.object;
  });
  return out;
}

}  // namespace heapleak
