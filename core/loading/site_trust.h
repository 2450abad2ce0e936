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

}  // namespace heapleak
