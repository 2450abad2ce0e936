#include "engine/check.h"

#include <string>
#include <utility>

#include "core/loading/load_warnings.h"
#include "engine/memory_evidence.h"

namespace heapleak::engine {

CheckEvidence check_evidence(DiffSet& dumps, const ReadWithReferences& reread) {
  CheckEvidence evidence;
  for (std::size_t k = 0; k < dumps.size(); ++k) {
    const LoadReport& report = dumps.report(k);
    if (!looks_truncated(report)) continue;
    for (const std::string& warning : load_warnings(report)) {
      if (warning.rfind("truncated", 0) == 0) {
        evidence.problems.push_back(
            {"truncated", report.path,
             warning + " (the process died while dumping?): take the dumps again"});
      }
    }
  }
  if (!evidence.problems.empty()) return evidence;
  // The diff and the series check first: rows of dumps that are not one
  // series would be made of noise.
  ExplainOutcome judged = judge_dumps(dumps, GroupBy::kClass, reread);
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
