// Which allocation sites of a heap to believe, from the capture manifest
// beside its dump (core/reading/dump_manifest.h): none when it says tracing was off,
// only objects allocated since the series turned tracing on otherwise. A
// dump without a manifest keeps every site it has.
#pragma once

#include "core/heap/heap.h"

namespace heapleak {

// Sets heap.trust_sites_from(...) from the manifest of heap.report().path;
// called once per load, before the heap is shared.
void trust_sites_by_manifest(const Heap& heap);

// What trust_sites_by_manifest would set for the dump at `path` (0: every
// site, Heap::kNoSites: none): a dump streamed rather than loaded
// (core/diagnosis/streamed_counterparts.h) reads its trust before its records.
std::uint32_t sites_trusted_from(const std::string& path);

}  // namespace heapleak
