// A holder born between A and B: `@seen ||= {}` first called after a deploy
// or a flag flip. The first object above the leaked ones that was alive in A
// is then the module (or object) that gained one instance variable once and
// stopped growing, while the Hash made after A keeps growing from B to C.
// That new container is the leak's holder ("Hash in Flags.@seen (created
// between A and B)"), with the objects under it; so is a new Array, Set,
// Queue or object that keeps growing.
#pragma once

#include <span>
#include <vector>

#include "core/diagnosis/counterparts.h"
#include "core/heap/heap.h"

namespace heapleak {

// For each anchor in `holder_of` (an object index below `first_mark`, see
// core/diagnosis/later_holders.h) whose own size did not grow from B to C, the leaked
// containers it references directly (or through its 4.0 fields object) that
// grow from B to C, and at whose address A had no container of their type
// and class (the identity rule calls a store whose first entry was pruned
// new), become holders: every leaked object whose shortest root
// path passes through one of them is re-anchored to it, the container
// itself included. Objects of other anchors are left alone.
void adopt_born_holders(const Counterparts& baseline, const Heap& target, const Counterparts& later,
                        std::span<const char> leaked, std::span<const ObjectIndex> objects,
                        std::span<ObjectIndex> holder_of, ObjectIndex first_mark);

}  // namespace heapleak
