// explain over a series of N >= 4 dumps D1..DN: each leak row's growth read
// in every dump (the holder's length, size or references, and its own
// bytes), how many intervals it grew in, and the rows that grew in every
// interval ranked first. The rows themselves come from the 3-dump diff of
// D1, D(N-1) and DN; with three dumps nothing here runs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/diagnosis/counterparts.h"
#include "core/diagnosis/leak_row.h"
#include "core/heap/heap.h"

namespace heapleak {

// The intervals of `counts` (one per dump) in which it grew: both ends
// known and the later one larger.
std::size_t intervals_grown(std::span<const std::optional<std::uint64_t>> counts);

// Grew in every interval of a series of at least two dumps.
bool grew_every_interval(std::span<const std::optional<std::uint64_t>> counts);

// Fills every row's `series` and `series_bytes` from the dumps D1..DN, then
// moves the leak rows that grew in every interval ahead of the others, each
// part in its former order. `others[k]`: what dump k says of the target's
// objects (core/diagnosis/counterparts.h), null for the target itself.
void add_series_growth(const Heap& target, std::span<const Counterparts* const> others,
                       LeakClusters& clusters);
// The same of loaded heaps, the target among them (tests).
void add_series_growth(const Heap& target, std::span<const Heap* const> dumps,
                       LeakClusters& clusters);

}  // namespace heapleak
