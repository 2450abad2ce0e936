// The holder is what keeps the leaked objects alive in C, not an object of B
// gone by C. A leaked object's first non-leaked ancestor in B may be a
// request in flight (a job's closure, a header Hash on the machine stack)
// that died before C, while something else (a registry of callbacks) holds
// the object in C. Such objects are re-anchored: to another referrer in B
// that lives on in C, reached through leaked objects; else to the first
// ancestor of the gone holder that lives on (a container replaced by a
// copy); else they are held in B only (noise, `transient`).
#pragma once

#include <span>
#include <vector>

#include "core/diagnosis/counterparts.h"
#include "core/heap/heap.h"

namespace heapleak {

// `holder_of[x]` for each x in `objects` (leaked, `leaked[x]` set): an object
// index, or a marker at or above kFirstHolderMark (root-held, unreachable)
// that is left alone. Gone holders are replaced in place; objects held in B
// only get `transient_mark`.
inline constexpr ObjectIndex kFirstHolderMark = 0xFFFD0000u;
void keep_holders_alive_in_later(const Counterparts& baseline, const Heap& target,
                                 const Counterparts& later, std::span<const char> leaked,
                                 std::span<const ObjectIndex> objects,
                                 std::span<ObjectIndex> holder_of, ObjectIndex transient_mark);

}  // namespace heapleak
