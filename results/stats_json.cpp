#include "results/stats_json.h"

#include "results/object_brief_json.h"

namespace heapleak::results {
namespace json = boost::json;

json::object leak_diff_json(const Heap& target, const LeakDiff& diff) {
  json::array groups;
  for (const auto& group : diff.groups) {
    json::object item{{"key", group.key},
                      {"count", group.count},
                      {"memsize", group.memsize},
                      {"samples", addresses_json(target, group.samples)}};
    if (group.vm_internal) item["vmInternal"] = true;
    groups.push_back(std::move(item));
  }
  json::array warnings;
  for (const auto& warning : diff.warnings) warnings.emplace_back(warning);
  json::array grown;
  for (const auto& g : diff.grown) {
    grown.push_back(
        json::object{{"address", format_address(target.address(g.object))},
                     {"type", object_type_name(target.type(g.object))},
                     {"class", class_display_name(target, g.object)},
                     {"field", g.field},
                     {"baseline", g.baseline},
                     {"target", g.target},
                     {"later", g.later},
                     {"memsize", json::array{g.bytes_baseline, g.bytes_target, g.bytes_later}}});
  }
  return json::object{
      {"threeWay", diff.three_way},
      {"rule", diff.rule},
      {"compacted", diff.compacted},
      {"baselineSurvival", diff.baseline_survival},
      {"laterSurvival", diff.later_survival},
      {"warnings", std::move(warnings)},
      {"groups", std::move(groups)},
      {"total", json::object{{"count", diff.total_count}, {"memsize", diff.total_memsize}}},
      {"grown", std::move(grown)},
  };
}

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
