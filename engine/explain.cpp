#include "engine/explain.h"

#include <algorithm>
#include <cstdint>

#include "results/dump_files.h"
#include "results/explain_json.h"
#include "results/series_json.h"

namespace heapleak::engine {

ExplainAnswer explain(std::span<const Heap* const> heaps, const std::vector<std::string>& paths,
                      const ExplainQuery& query) {
  ExplainAnswer answer;
  ExplainInput input;
  input.dumps.assign(heaps.begin(), heaps.end());
  input.group_by = query.group_by;
  answer.outcome = explain_leaks(std::move(input));
  const Heap& target = *heaps[diff_roles(heaps.size()).target];
  const ExplainOutcome& outcome = answer.outcome;
  answer.doc = results::leak_clusters_json(target, outcome.diff, outcome.rows,
                                           query.limit == 0 ? SIZE_MAX : query.limit,
                                           std::min(query.samples, kExplainSamples));
  answer.doc["groupBy"] = group_by_name(query.group_by);
  answer.doc["files"] = results::dump_files_json(paths);
  answer.doc["series"] = results::series_json(outcome.series);
  return answer;
}

}  // namespace heapleak::engine
