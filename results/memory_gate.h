// `heapleak check`'s budgets on memory: the series' RSS growth from its first
// dump to its last (--max-rss-growth) and the part of it nothing accounts
// for (--max-unexplained), from the accounting of the capture manifests
// (core/series/memory_accounting.h). A budget on a figure the manifests did
// not record fails: a gate never passes on evidence it could not read.
#pragma once

#include "core/series/memory_accounting.h"
#include "results/leak_gate.h"

namespace heapleak::results {

// Sets verdict.memory when a memory budget is given, adds a reason per
// budget passed (or not judged) and clears verdict.passed then.
void judge_memory(const MemoryAccounting& accounting, const GateBudget& budget,
                  GateVerdict& verdict);

}  // namespace heapleak::results
