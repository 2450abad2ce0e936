#include "core/diagnosis/grown_objects.h"

#include <algorithm>
#include <optional>

#include "core/diagnosis/growth_verdict.h"
#include "core/heap/naming.h"

namespace heapleak {
namespace {

// What grows: a String's bytesize, an Array's length, a Hash's size.
std::optional<std::uint64_t> size_of(const Heap& heap, ObjectIndex i) {
  const auto length = heap.length(i);
  return length ? std::optional<std::uint64_t>(*length) : std::nullopt;
}

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

// The same container in `other`: the diff's match, else the object at the
// same address when same_container says so.
std::optional<ObjectIndex> counterpart(const Heap& target, ObjectIndex i, const Heap& other,
                                       ObjectIndex matched) {
  if (matched != kNoObject) return matched;
  const auto j = other.find(target.address(i));
  if (!j || !same_container(target, i, other, *j)) return std::nullopt;
  return j;
}

}  // namespace

std::vector<GrownObject> grown_objects(const Heap& baseline, const Heap& target, const Heap& later,
                                       std::span<const ObjectIndex> in_baseline,
                                       std::span<const ObjectIndex> in_later) {
  std::vector<GrownObject> out;
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    // Hidden and VM objects (no class: finalizer tables, symbol tables) are the VM's own.
    if (!worth_a_look(target, i) || target.class_index(i) == kNoObject || is_vm_internal(target, i))
      continue;
    const auto a = counterpart(target, i, baseline, in_baseline[i]);
    if (!a) continue;
    const auto c = counterpart(target, i, later, in_later[i]);
    if (!c) continue;
    const auto sa = size_of(baseline, *a), sb = size_of(target, i), sc = size_of(later, *c);
    if (!sa || !sb || !sc || !(*sa < *sb && *sb < *sc)) continue;
    const bool string = target.type(i) == ObjectType::kString;
    if (*sc - *sa < (string ? kGrownMinBytes : kGrownMinEntries)) continue;
    out.push_back(GrownObject{i,
                              string                                ? "bytesize"
                              : target.type(i) == ObjectType::kHash ? "size"
                                                                    : "length",
                              *sa, *sb, *sc, baseline.memsize(*a), target.memsize(i),
                              later.memsize(*c)});
  }
  std::sort(out.begin(), out.end(), [](const GrownObject& x, const GrownObject& y) {
    const auto gx = x.bytes_later - std::min(x.bytes_later, x.bytes_baseline);
    const auto gy = y.bytes_later - std::min(y.bytes_later, y.bytes_baseline);
    return gx != gy ? gx > gy : x.object < y.object;
  });
  return out;
}

}  // namespace heapleak
