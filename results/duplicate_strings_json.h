// duplicateStrings' answer (the strings `heapleak top` lists): STRING
// objects stored many times over, each with its content read back from the
// dump.
#pragma once

#include <boost/json.hpp>
#include <vector>

#include "core/diagnosis/ownership.h"
#include "core/heap/heap.h"

namespace heapleak::results {

// A STRING's content read back from the dump (the heap keeps only a hash),
// cut at 200 characters; null when it cannot be read.
boost::json::value string_value_json(const Heap& heap, ObjectIndex i);
// duplicateStrings' result without its `heap` id: {strings: [{value, count,
// memsize, wasted, samples}]}.
boost::json::object duplicate_strings_json(const Heap& heap,
                                           const std::vector<DuplicateStrings>& strings);

}  // namespace heapleak::results
