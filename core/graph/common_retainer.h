// The seed's `root`, done right: breadth-first over referrers from every
// sample at once, level by level, until some object reaches all samples (or
// at least k of them). That object is the nearest common retainer; its
// distance is the longest of its shortest paths to the samples. No depth cap:
// the search stops on an answer, on exhaustion, or on a visit budget.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/heap/heap.h"

namespace heapleak {

struct RetainerQuery {
  std::vector<ObjectIndex> samples;  // distinct objects of the heap
  std::size_t min_samples = 0;       // 0: all samples
  std::size_t max_visits = 20'000'000;
  const std::atomic<bool>* cancel = nullptr;  // checked once per level
};

struct RetainerResult {
  ObjectIndex retainer = kNoObject;  // kNoObject: no common retainer
  std::uint32_t distance = 0;
  // For each sample the retainer reaches: retainer -> ... -> sample.
  std::vector<std::vector<ObjectIndex>> paths;
  std::size_t visited = 0;
  bool budget_exhausted = false;
  bool cancelled = false;
};

// A sample is an ordinary node on the way (samples may reach each other
// through cycles) but is never itself the answer: the question is what holds them.
RetainerResult find_common_retainer(const Heap& heap, const RetainerQuery& query);

}  // namespace heapleak
