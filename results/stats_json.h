// The stats envelope: one leak diff as the `stats` method answers it and as
// `heapleak stats --json` prints it (the daemon adds the heap ids).
#pragma once

#include <boost/json.hpp>
#include <cstddef>

#include "core/diagnosis/leak_diff.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"

namespace heapleak::results {

// One leak diff: its groups (every sample address), warnings, total and the
// containers that grew.
boost::json::object leak_diff_json(const Heap& target, const LeakDiff& diff);
// leak_diff_json plus `groupBy` and `groupCount` (groups before the limit);
// `groups` keeps the `limit` largest, all when limit is 0. Every group lists
// every sample address the diff kept.
boost::json::object stats_json(const Heap& target, const LeakDiff& diff, GroupBy group_by,
                               std::size_t limit);

}  // namespace heapleak::results
