// The warning every surface gives when a diff is grouped by allocation site
// or generation on a dump written without allocation tracing: every object
// then falls in one group, which must not pass silently.
#pragma once

#include "core/diagnosis/leak_diff.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"

namespace heapleak {

// Appends the warning to diff.warnings when `group_by` needs tracing and
// `target` was not traced; every surface prints diff.warnings.
void warn_if_untraced(LeakDiff& diff, const Heap& target, GroupBy group_by);

}  // namespace heapleak
