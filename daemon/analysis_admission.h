// The --max-memory budget for the analyses a query caches on a heap (the
// dominator tree, root paths): admitted on their estimated peak before they
// run (refused with -32803 overBudget and what they need and what is free),
// then charged to the heap for what they keep once the query is done, and
// kept on disk next to the heap's cache image (core/heap_cache.h) so a
// restarted daemon maps them instead of computing them again. Also the
// budget for the dumps a diff streams against B, admitted the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/heap/analysis_cost.h"
#include "daemon/daemon_context.h"
#include "daemon/heap_store.h"

namespace heapleak::daemon {

class AnalysisAdmission {
 public:
  // Throws protocol::RpcException (overBudget) when the analyses in `needed`
  // that `entry`'s heap lacks would not fit; nothing to admit is a no-op.
  AnalysisAdmission(DaemonContext& ctx, const HeapEntry& entry, unsigned needed);
  // Frees the reservation, charges the heap what it holds now and, for a
  // heap with a cache image, posts the writing of its analyses to the load
  // pool (done while the answer goes out).
  ~AnalysisAdmission();
  AnalysisAdmission(const AnalysisAdmission&) = delete;
  AnalysisAdmission& operator=(const AnalysisAdmission&) = delete;

 private:
  DaemonContext& ctx_;
  std::shared_ptr<const Heap> heap_;
  std::string id_;
  std::uint64_t reserved_ = 0;
};

// The --max-memory budget for the dumps a diff streams against B
// (daemon/streamed_dumps.h): admitted on their peak before they start
// (refused with -32803 overBudget), freed when they end; what is kept of
// them is charged to B (HeapStore::charge_beside).
class StreamAdmission {
 public:
  // `names`: the files' names, for the message; `streams`: how many.
  StreamAdmission(DaemonContext& ctx, const HeapEntry& target, const std::string& names,
                  std::size_t streams);
  ~StreamAdmission();
  StreamAdmission(const StreamAdmission&) = delete;
  StreamAdmission& operator=(const StreamAdmission&) = delete;

 private:
  HeapStore& store_;
  std::uint64_t reserved_ = 0;
};

}  // namespace heapleak::daemon
