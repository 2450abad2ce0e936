// One leak, one row: explain's rows folded after clustering. A row whose
// holder is reached only through another row's leaked objects belongs to
// that row (the timings Arrays of subscribers that leaked with the list), and
// so does one whose holder that row's holder keeps alive through a block
// (old instances whose subscription captured them: `grows_with`);
// rows with one signature (the same holder class, path and reach: 200 alike
// instances of one bug) become one row with their count of holders and their
// totals. Keeps LeakCluster's invariants: objects ascending, classes biggest first.
#pragma once

#include <vector>

#include "core/diagnosis/leak_row.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"

namespace heapleak {

// Folds `rows` (one list: leaks or noise) in place; the result is unsorted.
void fold_rows(const Heap& target, std::vector<LeakCluster>& rows, GroupBy group_by);

}  // namespace heapleak
