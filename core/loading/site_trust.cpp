#include "core/loading/site_trust.h"

#include <algorithm>

#include "core/reading/dump_manifest.h"

namespace heapleak {

std::uint32_t sites_trusted_from(const std::string& path) {
  const auto manifest = read_manifest_for(path);
  if (!manifest) return 0;
  // Sites in a dump taken with tracing off are the tracer's stale table.
  if (manifest->tracing_on == false) return Heap::kNoSites;
  if (manifest->tracing_since_gc)
    return static_cast<std::uint32_t>(
        std::min<std::uint64_t>(*manifest->tracing_since_gc, Heap::kNoSites - 1));
  return 0;
}

void trust_sites_by_manifest(const Heap& heap) {
  if (!heap.has_allocation_info() && !heap.has_generation()) return;  // nothing to doubt
  const std::uint32_t from = sites_trusted_from(heap.report().path);
  if (from != 0) heap.trust_sites_from(from);
}

}  // namespace heapleak
