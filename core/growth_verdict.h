// Whether a holder's growth A -> B -> C reads as a leak or as a container at
// its cap: the tolerance that keeps an evicting cache (217 -> 209 -> 218), a
// size-capped store (147 -> 141 -> 152) and a ring buffer filling up between
// the dumps (45 -> 95 -> 100) out of the leak rows, whatever the phase of
// the workload when the dumps were taken.
#pragma once

#include <cstdint>
#include <optional>

#include "core/heap.h"

namespace heapleak {

struct Growth;

// The container `i` of `x` and `j` of `y`, at one address, are one object for
// reading its growth: same type and class name (and generation when both
// have one). Its contents do not count: an LRU that evicted its first key, a
// ring buffer that shifted, are still the same container (the diff's
// untraced identity compares first references and would call them new).
bool same_container(const Heap& x, ObjectIndex i, const Heap& y, ObjectIndex j);

// Some of the objects `holder` references in `target` are gone by `later`:
// it evicts (an append-only leak keeps every entry). False without `later`.
bool drops_entries(const Heap& target, ObjectIndex holder, const Heap* later);

// The growth says "bounded": C not above B; or C back within a tolerance of
// the larger of A and B after a dip; or a container that evicts and whose
// growth slowed down sharply from A->B to B->C (it reached its cap).
bool looks_bounded(const Growth& growth);

}  // namespace heapleak
