// An object's references as its dump record lists them, in the GC's marking
// order, which the loaded heap does not keep (it sorts and de-duplicates
// them), and a String's value. Full loads only (they keep record offsets).
// One record read per call: for the few classes and blocks a report names,
// never for every object.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/heap/heap.h"

namespace heapleak {

// The referenced objects found in `heap`, in record order (duplicates kept);
// nullopt when the record cannot be read back.
std::optional<std::vector<ObjectIndex>> record_references(const Heap& heap, ObjectIndex i);

// A STRING's `value` as the dump wrote it (nullopt when it has none).
std::optional<std::string> string_value(const Heap& heap, ObjectIndex i);

}  // namespace heapleak
