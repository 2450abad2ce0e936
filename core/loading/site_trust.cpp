#include "core/loading/site_trust.h"

#include <algorithm>

#include "core/reading/dump_manifest.h"

namespace heapleak {

void trust_sites_by_manifest(const Heap& heap) {
  if (!heap.has_allocation_info() && !heap.has_generation()) return;  // nothing to doubt
  const auto manifest = read_manifest_for(heap.report().path);
  if (!manifest) return;
  if (manifest->tracing_on == false) {
    // Sites in a dump taken with tracing off are the tracer's stale table.
    heap.trust_sites_from(Heap::kNoSites);
  } else if (manifest->tracing_since_gc) {
    heap.trust_sites_from(static_cast<std::uint32_t>(
        std::min<std::uint64_t>(*manifest->tracing_since_gc, Heap::kNoSites - 1)));
  }
}

}  // namespace heapleak
