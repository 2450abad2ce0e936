// A leak row's objects by class (or by the chosen group key), biggest first,
// with their allocation sites; classes made at run time fold into one group
// ("subclasses of BaseForm"). Apart from leak_clusters.h, which fills each
// row's `classes` with it, so that leak_folding, which the clustering calls,
// regroups a folded row without including the clustering.
#pragma once

#include <vector>

#include "core/diagnosis/leak_row.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"

namespace heapleak {

// The leaked `objects` by class (group key), biggest first, with their
// allocation sites (traced dumps, most first, at most 5 per class).
std::vector<ClusterClass> cluster_classes(const Heap& heap, const std::vector<ObjectIndex>& objects,
                                          GroupBy group_by);

}  // namespace heapleak
