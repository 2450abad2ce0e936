// One loaded heap as `loadHeap` answers it and `heapleak info --json` prints
// it: counts, roots, broken lines, memory, time, cache use, warnings.
#pragma once

#include <boost/json.hpp>

#include "core/heap/heap.h"

namespace heapleak::results {

boost::json::object heap_summary_json(const Heap& heap);

}  // namespace heapleak::results
