// Old objects that grow in place: alive in A, B and C (at one address, by
// growth_verdict.h's same_container), whose size grows A < B < C past a
// threshold. A String log buffer appended to, an Array of Integers, a Hash
// of old values: leaks with no new object to find, invisible to the diff.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/diagnosis/counterparts.h"
#include "core/heap/heap.h"

namespace heapleak {

struct GrownObject {
  ObjectIndex object = kNoObject;  // in the target heap (B)
  std::string field;               // bytesize (a String) | length (Array) | size (Hash)
  std::uint64_t baseline = 0, target = 0, later = 0;
  std::uint64_t bytes_baseline = 0, bytes_target = 0, bytes_later = 0;  // memsize in A, B, C
};

// A String grows past this many bytes from A to C, an Array or Hash past this
// many entries, to be reported (smaller growth is a buffer finding its size).
inline constexpr std::uint64_t kGrownMinBytes = 16 * 1024;
inline constexpr std::uint64_t kGrownMinEntries = 32;

// The grown objects of `target`, most bytes gained first. `in_baseline[i]`
// and `in_later[i]` say the diff matched target's object i in A and in C:
// matched objects are compared at once, others only when big enough to
// qualify (a String's value changes as it grows, so the diff's untraced
// identity does not match it) and the same container there.
std::vector<GrownObject> grown_objects(const Counterparts& baseline, const Heap& target,
                                       const Counterparts& later, std::span<const char> in_baseline,
                                       std::span<const char> in_later);

}  // namespace heapleak
