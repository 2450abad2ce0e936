#include "results/stats_json.h"

#include "results/results_json.h"

namespace heapleak::results {

boost::json::object stats_json(const Heap& target, const LeakDiff& diff, GroupBy group_by,
                               std::size_t limit) {
  boost::json::object out = leak_diff_json(target, diff);
  out["groupBy"] = group_by_name(group_by);
  auto& groups = out["groups"].as_array();
  out["groupCount"] = groups.size();
  if (limit != 0 && groups.size() > limit) groups.resize(limit);
  return out;
}

}  // namespace heapleak::results
