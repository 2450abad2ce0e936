// The --max-memory budget for the analyses a query caches on a heap (the
// dominator tree, root paths): admitted on their estimated peak before they
// run (refused with -32803 overBudget and what they need and what is free),
// then charged to the heap for what they keep once the query is done.
#pragma once

#include <cstdint>

#include "core/analysis_cost.h"
#include "daemon/heap_store.h"

namespace heapleak::daemon {

class AnalysisAdmission {
 public:
  // Throws protocol::RpcException (overBudget) when the analyses in `needed`
  // that `entry`'s heap lacks would not fit; nothing to admit is a no-op.
  AnalysisAdmission(HeapStore& store, const HeapEntry& entry, unsigned needed);
  // Frees the reservation and charges the heap what it holds now.
  ~AnalysisAdmission();
  AnalysisAdmission(const AnalysisAdmission&) = delete;
  AnalysisAdmission& operator=(const AnalysisAdmission&) = delete;

 private:
  HeapStore& store_;
  std::string id_;
  std::uint64_t reserved_ = 0;
};

}  // namespace heapleak::daemon
