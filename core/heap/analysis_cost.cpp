#include "core/heap/analysis_cost.h"

namespace heapleak {

std::uint64_t analysis_peak_bytes(const Heap& heap, unsigned needed) {
  const std::uint64_t n = heap.size();
  std::uint64_t bytes = 0;
  if ((needed & kDominatorsAnalysis) && !heap.has_dominators())
    bytes += 32 * n;  // + the instances of each class (4)
  if ((needed & kRootPathsAnalysis) && !heap.has_root_paths()) bytes += 8 * n;
  return bytes;
}

std::uint64_t analysis_kept_bytes(std::uint64_t objects, unsigned analyses) {
  return objects *
         ((analyses & kDominatorsAnalysis ? 16 : 0) + (analyses & kRootPathsAnalysis ? 4 : 0));
}

}  // namespace heapleak
