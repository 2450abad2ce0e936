// Where a series' memory went, for explain and check alike: each dump's own
// figures (its heap's objects and bytes) and its capture manifest's memory
// block (read beside the dump, heap.report().path), the accounting of them
// (core/series/memory_accounting.h), and what explain's rows add to it: the
// leak rows' bytes, and which rows hold DATA objects (native memory).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/diagnosis/leak_row.h"
#include "core/heap/heap.h"
#include "engine/diff_set.h"
#include "results/memory_json.h"

namespace heapleak::engine {

// `dumps`: A B [C] or D1..DN as explain compared them; `rows`: explain's rows
// of them. A manifest's warnings (a malformed figure, left out) go to
// `warnings`.
results::MemoryEvidence memory_evidence(const DiffSet& dumps, const LeakClusters& rows,
                                        std::vector<std::string>& warnings);

}  // namespace heapleak::engine
