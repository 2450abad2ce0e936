#include "results/leak_gate.h"

#include <cstdio>
#include <map>

#include "results/text/human_bytes.h"

namespace heapleak::results {
using text::grouped;
using text::human_bytes;

namespace {

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return grouped(n) + " " + (n == 1 ? one : many);
}

}  // namespace

GateVerdict judge_leaks(const LeakClusters& clusters, const LeakBaseline* baseline,
                        const GateBudget& budget) {
  GateVerdict verdict;
  // Growth is judged per signature, as the baseline stores it: rows that
  // share a signature add up (baseline_of merges them the same way).
  std::map<std::string, std::uint64_t> retained_now;
  for (const LeakCluster& row : clusters.leaks) retained_now[row.signature] += row.retained;

  for (const LeakCluster& row : clusters.leaks) {
    GateRow out;
    out.row = &row;
    out.baseline = baseline ? baseline->find(row.signature) : nullptr;
    if (out.is_new()) {
      ++verdict.new_rows;
      verdict.new_objects += row.count;
      verdict.new_retained += row.retained;
    } else {
      ++verdict.known_rows;
      if (out.baseline->retained > 0) {
        out.growth = static_cast<double>(retained_now[row.signature]) /
                     static_cast<double>(out.baseline->retained);
        out.grew = *out.growth > budget.growth_factor;
      }
      if (out.grew) ++verdict.grown_rows;
    }
    verdict.rows.push_back(out);
  }
  if (baseline) {
    for (const BaselineEntry& entry : baseline->leaks)
      if (!retained_now.contains(entry.signature)) verdict.fixed.push_back(entry);
  }

  const std::string new_leaks = plural(verdict.new_rows, "new leak", "new leaks") + " (" +
                                plural(verdict.new_objects, "object", "objects") + ", " +
                                human_bytes(verdict.new_retained) + " retained)";
  bool new_rows_fail = false;
  if (!budget.any_budget()) {
    if (verdict.new_rows > 0) {
      new_rows_fail = true;
      verdict.reasons.push_back(new_leaks + "; with no budget, any new leak fails");
    }
  } else {
    verdict.over_bytes = budget.max_leaked_bytes && verdict.new_retained > *budget.max_leaked_bytes;
    verdict.over_objects =
        budget.max_leaked_objects && verdict.new_objects > *budget.max_leaked_objects;
    if (verdict.over_bytes)
      verdict.reasons.push_back(new_leaks + " over --max-leaked-bytes " +
                                human_bytes(*budget.max_leaked_bytes));
    if (verdict.over_objects)
      verdict.reasons.push_back(new_leaks + " over --max-leaked-objects " +
                                grouped(*budget.max_leaked_objects));
    new_rows_fail = verdict.over_bytes || verdict.over_objects;
  }
  bool growth_fails = false;
  for (GateRow& row : verdict.rows) {
    row.failed = row.is_new() ? new_rows_fail : (row.grew && budget.fail_on_growth);
    growth_fails = growth_fails || (!row.is_new() && row.failed);
  }
  if (growth_fails) {
    char factor[32];
    std::snprintf(factor, sizeof factor, "%g", budget.growth_factor);
    verdict.reasons.push_back(plural(verdict.grown_rows, "known leak", "known leaks") +
                              " grew more than " + factor +
                              "x its baseline's retained bytes (--fail-on-growth)");
  }
  verdict.passed = verdict.reasons.empty();
  return verdict;
}

}  // namespace heapleak::results
