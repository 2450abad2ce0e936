#include "engine/stats.h"

#include "core/diagnosis/untraced_warning.h"
#include "results/dump_files.h"
#include "results/series_json.h"
#include "results/stats_json.h"

namespace heapleak::engine {

StatsAnswer stats(std::span<const Heap* const> heaps, const std::vector<std::string>& paths,
                  const LeakDiffOptions& options, std::size_t limit,
                  const ReadWithReferences& reread) {
  StatsAnswer answer;
  const Heap& baseline = *heaps[0];
  const Heap& target = *heaps[1];
  const Heap* later = heaps.size() >= 3 ? heaps[2] : nullptr;
  answer.diff = diff_heaps(baseline, target, later, options);
  LaterReread again = reread_for_moved_objects(answer.diff, later, 2, reread);
  if (again.heap) {
    later = again.heap.get();
    answer.diff = diff_heaps(baseline, target, later, options);
  }
  if (!again.warning.empty()) answer.diff.warnings.push_back(std::move(again.warning));
  answer.series = check_series(baseline, target, later, answer.diff.compacted);
  add_series_warnings(answer.series, answer.diff.warnings);
  warn_if_untraced(answer.diff, target, options.group_by);
  answer.doc = results::stats_json(target, answer.diff, options.group_by, limit);
  answer.doc["files"] = results::dump_files_json(paths);
  answer.doc["series"] = results::series_json(answer.series);
  return answer;
}

}  // namespace heapleak::engine
