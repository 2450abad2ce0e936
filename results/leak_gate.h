// The verdict of `heapleak check`: explain's leak rows judged against a
// baseline (accepted signatures) and budgets. Rows not in the baseline are
// new and count against the budgets; with no budget, any new row fails.
// Baseline rows that grew past a factor are reported, and fail only when
// asked; baseline entries no longer seen are fixed. No output format here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/leak_row.h"
#include "results/leak_baseline.h"

namespace heapleak::results {

struct GateBudget {
  std::optional<std::uint64_t> max_leaked_bytes;    // retained bytes of the new rows
  std::optional<std::uint64_t> max_leaked_objects;  // leaked objects of the new rows
  // A known leak "grew" when its retained bytes passed the baseline's times
  // this factor; it fails the gate only when fail_on_growth is set.
  double growth_factor = 2.0;
  bool fail_on_growth = false;
  // Budgets on the series' memory (results/memory_gate.h), from the capture
  // manifests: RSS growth first to last dump, and its unexplained part.
  std::optional<std::uint64_t> max_rss_growth, max_unexplained;

  // A budget on the leak rows (a memory budget alone leaves "any new leak fails").
  bool any_budget() const { return max_leaked_bytes || max_leaked_objects; }
  bool memory_budget() const { return max_rss_growth || max_unexplained; }
};

struct GateRow {
  const LeakCluster* row = nullptr;
  const BaselineEntry* baseline = nullptr;  // null: a new leak
  // Retained now over retained in the baseline, for all rows of the same
  // signature together; null for new rows or a baseline of 0 bytes.
  std::optional<double> growth;
  bool grew = false;    // growth passed the budget's factor
  bool failed = false;  // this row is a reason the gate fails

  bool is_new() const { return baseline == nullptr; }
};

// The series' memory as the gate judged it (a memory budget was given).
struct GateMemory {
  std::string verdict;                                  // memory_verdict_name
  std::string verdict_line;                             // the accounting's one line
  std::optional<std::int64_t> rss_growth, unexplained;  // nullopt: not recorded
  bool over_rss = false, over_unexplained = false;
};

struct GateVerdict {
  std::vector<GateRow> rows;         // every leak row, in explain's order
  std::vector<BaselineEntry> fixed;  // baseline entries no row has now
  std::uint64_t new_rows = 0, new_objects = 0, new_retained = 0;
  std::uint64_t known_rows = 0, grown_rows = 0;
  bool over_bytes = false, over_objects = false;
  std::optional<GateMemory> memory;  // set by judge_memory
  bool passed = true;
  std::vector<std::string> reasons;  // why it failed, one sentence each (empty when passed)
};

// `baseline` may be null: every row is new.
GateVerdict judge_leaks(const LeakClusters& clusters, const LeakBaseline* baseline,
                        const GateBudget& budget);

}  // namespace heapleak::results
