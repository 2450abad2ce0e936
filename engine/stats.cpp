#include "engine/stats.h"

#include "core/diagnosis/untraced_warning.h"
#include "results/dump_files.h"
#include "results/series_json.h"
#include "results/stats_json.h"

namespace heapleak::engine {

StatsAnswer stats(std::span<const Heap* const> heaps, const std::vector<std::string>& paths,
                  const LeakDiffOptions& options, std::size_t limit) {
  StatsAnswer answer;
  const Heap& baseline = *heaps[0];
  const Heap& target = *heaps[1];
  const Heap* later = heaps.size() >= 3 ? heaps[2] : nullptr;
  answer.diff = diff_heaps(baseline, target, later, options);
  answer.series = check_series(baseline, target, later, answer.diff.compacted);
  add_series_warnings(answer.series, answer.diff.warnings);
  warn_if_untraced(answer.diff, target, options.group_by);
  answer.doc = results::stats_json(target, answer.diff, options.group_by, limit);
  answer.doc["files"] = results::dump_files_json(paths);
  answer.doc["series"] = results::series_json(answer.series);
  return answer;
}

}  // namespace heapleak::engine
