// What a heap's cached analyses (root paths, dominator tree) cost in memory:
// the bytes computing the missing ones needs at its peak, so a caller with a
// budget (heapleakd's --max-memory) can admit or refuse the work before it
// runs. What they keep afterwards is Heap::analyses_bytes_used().
#pragma once

#include <cstdint>

#include "core/heap/heap.h"

namespace heapleak {

// Which cached analyses a query needs (a bit set).
enum Analysis : unsigned {
  kNoAnalysis = 0,
  kRootPathsAnalysis = 1,
  kDominatorsAnalysis = 2,
};

// Peak bytes of computing the analyses in `needed` that `heap` has not cached
// yet (0 when all are cached). Measured per object: the dominator tree
// peaks near 24 bytes (preorder, DFS number -> object, parent, semi, label,
// ancestor: six uint32 arrays, the DFS needing no stack; root targets as
// bits) and keeps 16; root paths peak at 8 (parents and the BFS queue) and
// keep 4. The estimate rounds up.
std::uint64_t analysis_peak_bytes(const Heap& heap, unsigned needed);

// Bytes the analyses in `analyses` keep for a heap of `objects` objects once
// computed (16 per object for the dominator tree, 4 for root paths): the
// floor of their cost, for refusals that must be sure.
std::uint64_t analysis_kept_bytes(std::uint64_t objects, unsigned analyses);

}  // namespace heapleak
