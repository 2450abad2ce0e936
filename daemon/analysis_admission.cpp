#include "daemon/analysis_admission.h"

#include <algorithm>
#include <string>

#include "core/base/memory_headroom.h"
#include "engine/diff_streams.h"
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

// -32803 overBudget: `doing` needs about `estimate` bytes, `available` of
// the --max-memory budget is free; `data` gets the two figures too.
protocol::RpcException over_budget(const HeapStore& store, const std::string& doing,
                                   std::uint64_t estimate, std::uint64_t available,
                                   boost::json::object data) {
  data["neededBytes"] = estimate;
  data["availableBytes"] = available;
  return protocol::RpcException(protocol::domain_error(
      "overBudget",
      doing + " needs about " + mib_up(estimate) + " MiB but only " + mib_down(available) +
          " MiB of the --max-memory budget (" + mib_down(store.max_bytes()) +
          " MiB) is free; unload a heap or raise --max-memory",
      std::move(data)));
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
    throw over_budget(store, "computing the " + analysis_names(missing) + " of " + entry.id,
                      estimate, available,
                      {{"heap", entry.id},
                       {"analysis", missing & kDominatorsAnalysis ? "dominators" : "rootPaths"}});
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

StreamAdmission::StreamAdmission(DaemonContext& ctx, const HeapEntry& target,
                                 const std::string& names, std::size_t streams)
    : store_(ctx.store) {
  // Per stream, kept to the end: a byte per object of B (the flags). Per
  // stream running (DiffStreams::kAtOnce at a time): the records at
  // addresses B lacks (16 bytes each; a quarter of B's count is generous
  // between two dumps of one process), three 1 MiB blocks and the parser's.
  const std::uint64_t objects = target.heap->size();
  const std::uint64_t running = std::min(streams, engine::DiffStreams::kAtOnce);
  const std::uint64_t estimate =
      streams * objects + running * (objects * 4 + (std::uint64_t{4} << 20));
  std::uint64_t available = 0;
  if (!store_.admit_analysis(estimate, available)) {
    throw over_budget(store_, "reading " + names + " against " + target.id, estimate, available,
                      {{"heap", target.id}});
  }
  reserved_ = estimate;
}

StreamAdmission::~StreamAdmission() { store_.release(reserved_); }

}  // namespace heapleak::daemon
