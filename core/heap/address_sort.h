// The order of a load's objects by address (HeapBuilder::finish): Ruby
// writes them heap page by heap page, so the file is a few thousand
// ascending runs, merged here rather than sorted. Duplicated addresses keep
// their first record only.
#pragma once

#include <cstdint>

#include "core/base/address.h"
#include "core/base/column.h"
#include "core/heap/heap.h"

namespace heapleak {

// Fills `order` (order[k]: the file position of the k-th address; room
// the caller may have reserved, and faulted in ahead) and returns how many
// records it left out because their address came earlier in the file.
// Positions [hole_begin, hole_end) of `addresses` hold no object (a split
// load's padding) and are left out. `two`: the merge in two halves at once,
// below and from a pivot address; the order is the same.
std::uint64_t sort_by_address(const Column<Address>& addresses, ObjectIndex hole_begin,
                              ObjectIndex hole_end, bool two, Column<ObjectIndex>& order);

}  // namespace heapleak
