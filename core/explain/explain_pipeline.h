// explain's pipeline: one function whose body is the ordered list of every
// pass from the dumps to the ranked rows (the diff, the series check, the
// holders, the rows' growth and verdicts, folding, the series' growth), each
// run through core/explain/pass_runner.h (timed, HEAPLEAK_PROFILE=1 prints the
// times; a test can switch a pass off by name). Every front end gets its
// rows here (through engine/), so `heapleak explain` and the daemon agree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/leak_row.h"
#include "core/diagnosis/other_dump.h"
#include "core/explain/pass_runner.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"
#include "core/series/dump_series.h"

namespace heapleak {

struct ExplainInput {
  // A B [C], or a series D1..DN (N >= 4) read as A = D1, B = D(N-1), C = DN.
  // B needs references; the others may be identity-only, or null where
  // `others` has them.
  std::vector<const Heap*> dumps;
  // Empty, or one per dump: what dump k says of B's objects (streamed
  // against B, or made once for two calls: core/diagnosis/other_dump.h);
  // null for B and wherever it is to be read off dumps[k].
  std::vector<const OtherDump*> others;
  // B's summary (core/heap/dump_summary.h) when the caller has it already
  // (engine/diff_set.h): the series check reads it, else it is made here.
  const DumpSummary* target_summary = nullptr;
  GroupBy group_by = GroupBy::kClass;
  // A diff made already (check's, the tests'): the diff's passes pass over.
  std::optional<LeakDiff> diff;
  // Passes switched off by name (tests: what a pass is for).
  std::vector<std::string> skipped;
  // False: the diff's passes and the series check only (check reads the
  // series before it makes rows of a diff that may be no series at all).
  bool rows = true;
};

struct ExplainOutcome {
  LeakDiff diff;
  SeriesCheck series;
  LeakClusters rows;
  std::vector<PassTime> times;  // each pass, in order
};

ExplainOutcome explain_leaks(ExplainInput input);

// The rows of a diff made already: explain_leaks' row passes (no series
// check, no untraced warning). `baseline` and `later` may be identity-only
// heaps; `later` may be null (2-dump diff). `target` needs references.
LeakClusters cluster_leaks(const Heap& baseline, const Heap& target, const Heap* later,
                           const LeakDiff& diff, GroupBy group_by = GroupBy::kClass);

}  // namespace heapleak
