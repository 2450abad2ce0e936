#include "results/memory_gate.h"

#include "results/text/human_bytes.h"
#include "results/text/memory_text.h"

namespace heapleak::results {
namespace {

using text::human_bytes;
using text::signed_bytes;

// One budget: passed, within, or not judged for want of the figure.
bool over(const std::optional<std::int64_t>& figure, std::uint64_t budget, const char* flag,
          const char* what, const MemoryAccounting& a, std::vector<std::string>& reasons) {
  const std::string limit = std::string(flag) + " " + human_bytes(static_cast<double>(budget));
  if (!figure) {
    reasons.push_back(std::string(what) + " from " + a.from + " to " + a.to +
                      " is not known (no version 2 capture manifests with RSS beside the dumps): " +
                      limit + " cannot be judged");
    return true;
  }
  if (*figure <= 0 || static_cast<std::uint64_t>(*figure) <= budget) return false;
  reasons.push_back(std::string(what) + " " + signed_bytes(*figure) + " from " + a.from + " to " +
                    a.to + " over " + limit + " (memory: " + a.verdict_line + ")");
  return true;
}

}  // namespace

void judge_memory(const MemoryAccounting& accounting, const GateBudget& budget,
                  GateVerdict& verdict) {
  if (!budget.memory_budget()) return;
  GateMemory memory;
  memory.verdict = memory_verdict_name(accounting.verdict);
  memory.verdict_line = accounting.verdict_line;
  memory.rss_growth = accounting.rss_growth;
  memory.unexplained = accounting.unexplained;
  if (budget.max_rss_growth)
    memory.over_rss = over(accounting.rss_growth, *budget.max_rss_growth, "--max-rss-growth",
                           "RSS grew", accounting, verdict.reasons);
  if (budget.max_unexplained)
    memory.over_unexplained =
        over(accounting.unexplained, *budget.max_unexplained, "--max-unexplained",
             "unexplained RSS growth", accounting, verdict.reasons);
  verdict.memory = std::move(memory);
  verdict.passed = verdict.reasons.empty();
}

}  // namespace heapleak::results
