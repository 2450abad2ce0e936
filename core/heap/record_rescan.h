// Reads the references of a few objects back from the dump file of a heap
// loaded without them (identity-only: A and C of a diff keep only each
// object's first reference). One pass over the file, plain or gzip, for all
// the objects asked about at once, ending as soon as every one was seen; a
// file changed since it was loaded is refused, never read as the old one.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/base/address.h"
#include "core/base/error.h"
#include "core/heap/heap.h"

namespace heapleak {

// The references each of `wanted` lists in `heap`'s dump file, by address;
// an address with no record in the file is absent from the answer.
Result<std::unordered_map<Address, std::vector<Address>>> reread_references(
    const Heap& heap, const std::unordered_set<Address>& wanted);

}  // namespace heapleak
