#include "engine/explain.h"

#include <algorithm>
#include <cstdint>

#include "engine/memory_evidence.h"
#include "results/dump_files.h"
#include "results/explain_json.h"
#include "results/memory_json.h"
#include "results/series_json.h"

namespace heapleak::engine {

ExplainOutcome judge_dumps(DiffSet& dumps, GroupBy group_by, const ReadWithReferences& reread) {
  const auto judge = [&] {
    ExplainInput input;
    input.dumps = dumps.heaps();
    input.others = dumps.others();
    input.target_summary = &dumps.summary(diff_roles(dumps.size()).target);
    input.group_by = group_by;
    input.rows = false;
    return explain_leaks(std::move(input));
  };
  ExplainOutcome judged = judge();
  const auto later = diff_roles(dumps.size()).later;
  if (!later) return judged;
  LaterReread again =
      reread_for_moved_objects(judged.diff, *dumps.others()[*later], *later, reread);
  if (again.heap) {
    dumps.replace(*later, std::move(again.heap));
    judged = judge();
  }
  if (!again.warning.empty()) judged.diff.warnings.push_back(std::move(again.warning));
  return judged;
}

ExplainOutcome rows_of(ExplainOutcome judged, const DiffSet& dumps, GroupBy group_by) {
  ExplainInput input;
  input.dumps = dumps.heaps();
  input.others = dumps.others();
  input.group_by = group_by;
  input.diff = std::move(judged.diff);
  input.skipped = {"series check", "untraced warning"};  // judged, with their warnings
  ExplainOutcome out = explain_leaks(std::move(input));
  out.series = std::move(judged.series);
  return out;
}

ExplainAnswer explain(DiffSet& dumps, const std::vector<std::string>& paths,
                      const ExplainQuery& query, const ReadWithReferences& reread) {
  ExplainAnswer answer;
  // The diff and the series check, then the rows of that diff.
  answer.outcome = rows_of(judge_dumps(dumps, query.group_by, reread), dumps, query.group_by);
  const Heap& target = dumps.target();
  const ExplainOutcome& outcome = answer.outcome;
  answer.doc = results::leak_clusters_json(target, outcome.diff, outcome.rows,
                                           query.limit == 0 ? SIZE_MAX : query.limit,
                                           std::min(query.samples, kExplainSamples));
  answer.doc["groupBy"] = group_by_name(query.group_by);
  answer.doc["files"] = results::dump_files_json(paths);
  answer.doc["series"] = results::series_json(outcome.series);
  // The accounting of the RSS growth, read from the manifests beside the
  // dumps; their warnings are the answer's.
  std::vector<std::string> warnings;
  answer.memory = memory_evidence(dumps, outcome.rows, warnings);
  answer.doc["memory"] = results::memory_json(answer.memory);
  for (auto& warning : warnings) answer.doc["warnings"].as_array().emplace_back(warning);
  return answer;
}

}  // namespace heapleak::engine
