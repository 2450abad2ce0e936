// `heapleak check --format json`: the verdict, the budgets, and the new,
// known and fixed leaks (and the noise), each leak row as explain gives it
// (explain_json's leak_cluster_json), known rows with their baseline entry.
#pragma once

#include <boost/json.hpp>
#include <string>

#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/leak_row.h"
#include "core/heap/heap.h"
#include "results/leak_gate.h"

namespace heapleak::results {

boost::json::object gate_json(const Heap& target, const LeakDiff& diff,
                              const LeakClusters& clusters, const GateVerdict& verdict,
                              const GateBudget& budget, const std::string& baseline_path);

// The memory the gate judged ({verdict, verdictText, rssGrowth, unexplained,
// overRssGrowth, overUnexplained}); null without a memory budget. SARIF's run
// properties carry it too.
boost::json::value gate_memory_json(const GateVerdict& verdict);

}  // namespace heapleak::results
