// explain's answer (`heapleak explain --json`, the daemon's `explain`): one
// row per leak with its holder, reach, growth, objects, owners and path,
// noise rows apart.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <vector>

#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/leak_row.h"
#include "core/diagnosis/ownership.h"
#include "core/heap/heap.h"

namespace heapleak::results {

// One row of explain's answer, with at most `samples` leaked addresses.
boost::json::object leak_cluster_json(const Heap& target, const LeakCluster& cluster,
                                      std::size_t samples);
// explain's answer: one row per leak (the first `limit` leaks and noise
// rows), each with at most `samples` leaked addresses.
boost::json::object leak_clusters_json(const Heap& target, const LeakDiff& diff,
                                       const LeakClusters& clusters, std::size_t limit,
                                       std::size_t samples);

}  // namespace heapleak::results
