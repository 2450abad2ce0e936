#include "engine/stats.h"

#include "core/diagnosis/untraced_warning.h"
#include "results/dump_files.h"
#include "results/series_json.h"
#include "results/stats_json.h"

namespace heapleak::engine {

StatsAnswer stats(DiffSet& dumps, const std::vector<std::string>& paths,
                  const LeakDiffOptions& options, std::size_t limit,
                  const ReadWithReferences& reread) {
  StatsAnswer answer;
  const Heap& target = dumps.target();
  const bool three = dumps.size() >= 3;
  const auto diff = [&] {
    return diff_other_dumps(*dumps.others()[0], target, three ? dumps.others()[2] : nullptr,
                            options);
  };
  answer.diff = diff();
  if (three) {
    LaterReread again = reread_for_moved_objects(answer.diff, *dumps.others()[2], 2, reread);
    if (again.heap) {
      dumps.replace(2, std::move(again.heap));
      answer.diff = diff();
    }
    if (!again.warning.empty()) answer.diff.warnings.push_back(std::move(again.warning));
  }
  answer.series = check_series(dumps.summary(0), dumps.summary(1),
                               three ? &dumps.summary(2) : nullptr, answer.diff.compacted);
  add_series_warnings(answer.series, answer.diff.warnings);
  warn_if_untraced(answer.diff, target, options.group_by);
  answer.doc = results::stats_json(target, answer.diff, options.group_by, limit);
  answer.doc["files"] = results::dump_files_json(paths);
  answer.doc["series"] = results::series_json(answer.series);
  return answer;
}

}  // namespace heapleak::engine
