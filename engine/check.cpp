#include "engine/check.h"

#include <string>
#include <utility>

#include "core/loading/load_warnings.h"
#include "engine/memory_evidence.h"

namespace heapleak::engine {

CheckEvidence check_evidence(std::span<const Heap* const> heaps, const ReadWithReferences& reread) {
  CheckEvidence evidence;
  for (const Heap* heap : heaps) {
    if (!looks_truncated(heap->report())) continue;
    for (const std::string& warning : load_warnings(heap->report())) {
      if (warning.rfind("truncated", 0) == 0) {
        evidence.problems.push_back(
            {"truncated", heap->report().path,
             warning + " (the process died while dumping?): take the dumps again"});
      }
    }
  }
  if (!evidence.problems.empty()) return evidence;
  // The diff and the series check first: rows of dumps that are not one
  // series would be made of noise.
  std::vector<const Heap*> dumps(heaps.begin(), heaps.end());
  std::shared_ptr<const Heap> kept;
  ExplainOutcome judged = judge_dumps(dumps, GroupBy::kClass, reread, kept);
  for (const SeriesFinding& finding : judged.series.findings) {
    // A compaction the diff inferred is said in its warnings and read
    // around; one the manifests record breaks the series.
    if (finding.problem == SeriesProblem::kCompacted && !finding.from_manifest) continue;
    evidence.problems.push_back({series_problem_name(finding.problem), "", finding.message});
  }
  if (!evidence.problems.empty()) return evidence;
  evidence.rows = rows_of(std::move(judged), dumps, GroupBy::kClass);
  evidence.memory = memory_evidence(dumps, evidence.rows->rows, evidence.warnings);
  return evidence;
}

}  // namespace heapleak::engine
