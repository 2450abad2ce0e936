// One row per leak: the 3-dump diff's leaked objects clustered by their
// accumulation point. For each leaked object, walk up its shortest path from
// the GC roots to the first object that is not leaked: that pre-existing
// object is the holder (a VM internal is passed over for the first
// Ruby-visible object above it). Each cluster gets how Ruby reaches the
// holder, the holder's growth A -> B -> C, its leaked objects by class and
// site, the bytes it retains (counted once across rows) and a signature
// stable across runs; what is probably not a leak goes apart, with a reason.
#pragma once

#include <vector>

#include "core/diagnosis/cluster_classes.h"
#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/leak_row.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"

namespace heapleak {

// `baseline` and `later` may be identity-only heaps; `later` may be null
// (2-dump diff). `target` needs references.
LeakClusters cluster_leaks(const Heap& baseline, const Heap& target, const Heap* later,
                           const LeakDiff& diff, GroupBy group_by = GroupBy::kClass);

}  // namespace heapleak
