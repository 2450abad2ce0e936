// The whole answer to "what holds these objects": the samples found in the
// heap (and the addresses that are not), their nearest common retainer with
// its paths, the retainer's own path from a GC root, and the graph as dot.
// The one composition both the CLI's `root` and the daemon's `root` use.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/graph/common_retainer.h"
#include "core/graph/root_paths.h"
#include "core/graph/sample_split.h"
#include "core/heap/heap.h"
#include "core/reports/dot_graph.h"

namespace heapleak {

struct RetainerReport {
  std::vector<ObjectIndex> samples;
  std::vector<Address> unknown;  // asked for, absent from the heap
  RetainerResult result;
  RootPath retainer_root_path;  // empty when the dump has no roots or the retainer is unreachable
  RetainerGraph graph;
  std::string dot;
  SampleSplit split;  // the samples held by different containers, one group each
};

struct RetainerRequest {
  std::vector<Address> addresses;
  std::size_t min_samples = 0;  // 0: all
  std::size_t max_visits = 20'000'000;
  const std::atomic<bool>* cancel = nullptr;
};

// Fails (unknownAddress) only when none of the addresses is in the heap, or
// (cancelled) when `cancel` was set; a missing common retainer is an answer
// (retainer kNoObject), not an error.
Result<RetainerReport> explain_retention(const Heap& heap, const RetainerRequest& request);

}  // namespace heapleak
