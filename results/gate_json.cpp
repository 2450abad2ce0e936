#include "results/gate_json.h"

#include "results/explain_json.h"

namespace heapleak::results {
namespace json = boost::json;

namespace {

constexpr std::size_t kSamples = 5;

json::value optional_json(const std::optional<std::uint64_t>& value) {
  return value ? json::value(*value) : json::value(nullptr);
}

json::object entry_json(const BaselineEntry& entry) {
  return json::object{{"signature", entry.signature},
                      {"key", entry.key},
                      {"count", entry.count},
                      {"retained", entry.retained}};
}

json::value signed_or_null(const std::optional<std::int64_t>& value) {
  return value ? json::value(*value) : json::value(nullptr);
}

}  // namespace

json::value gate_memory_json(const GateVerdict& verdict) {
  if (!verdict.memory) return nullptr;
  const GateMemory& m = *verdict.memory;
  return json::object{{"verdict", m.verdict},
                      {"verdictText", m.verdict_line},
                      {"rssGrowth", signed_or_null(m.rss_growth)},
                      {"unexplained", signed_or_null(m.unexplained)},
                      {"overRssGrowth", m.over_rss},
                      {"overUnexplained", m.over_unexplained}};
}

json::object gate_json(const Heap& target, const LeakDiff& diff, const LeakClusters& clusters,
                       const GateVerdict& verdict, const GateBudget& budget,
                       const std::string& baseline_path) {
  json::array fresh, known, fixed, noise, reasons;
  for (const GateRow& row : verdict.rows) {
    json::object out = leak_cluster_json(target, *row.row, kSamples);
    out["failed"] = row.failed;
    if (row.is_new()) {
      fresh.push_back(std::move(out));
      continue;
    }
    out["baseline"] = entry_json(*row.baseline);
    out["growthFactor"] = row.growth ? json::value(*row.growth) : json::value(nullptr);
    out["grew"] = row.grew;
    known.push_back(std::move(out));
  }
  for (const BaselineEntry& entry : verdict.fixed) fixed.push_back(entry_json(entry));
  for (const LeakCluster& row : clusters.noise)
    noise.push_back(leak_cluster_json(target, row, kSamples));
  for (const auto& reason : verdict.reasons) reasons.emplace_back(reason);
  json::array warnings;
  for (const auto& warning : diff.warnings) warnings.emplace_back(warning);
  return json::object{
      {"verdict", verdict.passed ? "pass" : "fail"},
      {"reasons", std::move(reasons)},
      {"budgets", json::object{{"maxLeakedBytes", optional_json(budget.max_leaked_bytes)},
                               {"maxLeakedObjects", optional_json(budget.max_leaked_objects)},
                               {"growthFactor", budget.growth_factor},
                               {"failOnGrowth", budget.fail_on_growth},
                               {"maxRssGrowth", optional_json(budget.max_rss_growth)},
                               {"maxUnexplained", optional_json(budget.max_unexplained)}}},
      {"baseline", baseline_path.empty() ? json::value(nullptr) : json::value(baseline_path)},
      {"newLeaks", json::object{{"rows", verdict.new_rows},
                                {"count", verdict.new_objects},
                                {"retained", verdict.new_retained}}},
      {"overBytes", verdict.over_bytes},
      {"overObjects", verdict.over_objects},
      {"memory", gate_memory_json(verdict)},
      {"new", std::move(fresh)},
      {"known", std::move(known)},
      {"fixed", std::move(fixed)},
      {"noise", std::move(noise)},
      {"total", json::object{{"count", diff.total_count}, {"memsize", diff.total_memsize}}},
      {"rule", diff.rule},
      {"compacted", diff.compacted},
      {"warnings", std::move(warnings)},
      {"target", target.report().path}};
}

}  // namespace heapleak::results
