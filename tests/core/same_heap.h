// Requires two heaps to be the same heap: every accessor of every object,
// references both ways, roots, shapes, the load report, the gzip access
// points. For loads that must agree (a cache image and its parse, a dump
// split in two and one pass).
#pragma once

#include "core/heap/heap.h"

namespace heapleak::test {

// `same_file`: both were read from one file, unchanged (not so after a rebuild).
void require_same_heap(const Heap& a, const Heap& b, bool same_file = true);

}  // namespace heapleak::test
