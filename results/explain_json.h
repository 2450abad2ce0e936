// explain's answer (`heapleak explain --json`, the daemon's `explain`): one
// row per leak with its holder, reach, growth, objects, owners and path,
// noise rows apart; and the older per-class explanation's shape.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <vector>

#include "core/heap.h"
#include "core/leak_clusters.h"
#include "core/leak_diff.h"
#include "core/ownership.h"

namespace heapleak::results {

// The per-class explanation (core/ownership.h's LeakExplanation). No caller
// uses it since explain answers one row per leak (leak_clusters_json).
boost::json::object explanation_json(const Heap& target, const LeakDiff& diff,
                                     const std::vector<LeakExplanation>& leaks,
                                     std::size_t samples);
// One row of explain's answer, with at most `samples` leaked addresses.
boost::json::object leak_cluster_json(const Heap& target, const LeakCluster& cluster,
                                      std::size_t samples);
// explain's answer: one row per leak (the first `limit` leaks and noise
// rows), each with at most `samples` leaked addresses.
boost::json::object leak_clusters_json(const Heap& target, const LeakDiff& diff,
                                       const LeakClusters& clusters, std::size_t limit,
                                       std::size_t samples);

}  // namespace heapleak::results
