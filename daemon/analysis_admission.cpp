#include "daemon/analysis_admission.h"

#include <string>

#include "core/base/memory_headroom.h"
#include "protocol/binder.h"
#include "protocol/error.h"

namespace heapleak::daemon {
namespace {

std::string analysis_names(unsigned needed) {
  std::string names;
  if (needed & kDominatorsAnalysis) names = "dominator tree";
  if (needed & kRootPathsAnalysis) names += names.empty() ? "root paths" : " and root paths";
  return names;
}

std::string mib_up(std::uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20); }
std::string mib_down(std::uint64_t bytes) { return std::to_string(bytes >> 20); }

// Without --max-memory the memory left is the budget: analyses that would
// keep more than is left (their floor: what they keep, core/analysis_cost.h)
// are refused instead of the kernel killing the daemon part way.
void refuse_beyond_memory_left(const Heap& heap, const std::string& id, unsigned missing) {
  const std::uint64_t kept = analysis_kept_bytes(heap.size(), missing);
  const std::uint64_t left = memory_headroom_bytes();
  if (left == UINT64_MAX || kept <= left) return;
  throw protocol::RpcException(protocol::domain_error(
      "overBudget",
      "computing the " + analysis_names(missing) + " of " + id + " needs at least " + mib_up(kept) +
          " MiB but only " + mib_down(left) +
          " MiB of memory is left; unload a heap or free memory first",
      {{"heap", id},
       {"analysis", missing & kDominatorsAnalysis ? "dominators" : "rootPaths"},
       {"neededBytes", kept},
       {"availableBytes", left}}));
}

}  // namespace

AnalysisAdmission::AnalysisAdmission(DaemonContext& ctx, const HeapEntry& entry, unsigned needed)
    : ctx_(ctx), heap_(entry.heap), id_(entry.id) {
  HeapStore& store = ctx.store;
  unsigned missing = kNoAnalysis;
  if ((needed & kDominatorsAnalysis) && !entry.heap->has_dominators())
    missing |= kDominatorsAnalysis;
  if ((needed & kRootPathsAnalysis) && !entry.heap->has_root_paths()) missing |= kRootPathsAnalysis;
  const std::uint64_t estimate = analysis_peak_bytes(*entry.heap, missing);
  if (estimate == 0) return;
  // Admitted below all the same (always, without a budget): the release
  // recharges the heap and keeps the analyses in the cache.
  if (store.max_bytes() == 0) refuse_beyond_memory_left(*entry.heap, entry.id, missing);
  std::uint64_t available = 0;
  if (!store.admit_analysis(estimate, available)) {
    throw protocol::RpcException(protocol::domain_error(
        "overBudget",
        "computing the " + analysis_names(missing) + " of " + entry.id + " needs about " +
            mib_up(estimate) + " MiB but only " + mib_down(available) +
            " MiB of the --max-memory budget (" + mib_down(store.max_bytes()) +
            " MiB) is free; unload a heap or raise --max-memory",
        {{"heap", entry.id},
         {"analysis", missing & kDominatorsAnalysis ? "dominators" : "rootPaths"},
         {"neededBytes", estimate},
         {"availableBytes", available}}));
  }
  reserved_ = estimate;
}

AnalysisAdmission::~AnalysisAdmission() {
  if (reserved_ == 0) return;
  ctx_.store.release(reserved_);
  ctx_.store.recharge(id_);
  if (!heap_->image_binding()) return;
  try {
    ctx_.loads.post([cache = &ctx_.cache, logger = ctx_.logger, heap = heap_] {
      if (auto warning = cache->store_analyses(*heap)) logger->error(*warning);
    });
  } catch (...) {
    // Not kept this time (no memory for the task): computed again next run.
  }
}

}  // namespace heapleak::daemon
