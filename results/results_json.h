// The JSON shapes of core results: what heapleakd answers on the wire and
// what the one-shot `heapleak --json` prints, from one place so the two can
// never disagree. Field names are the wire's camelCase; addresses are "0x..".
// The other files of results/ hold the stats, heap-list and browse shapes.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "core/diagnosis/leak_clusters.h"
#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/ownership.h"
#include "core/graph/root_paths.h"
#include "core/heap/heap.h"
#include "core/reports/retainer_report.h"

namespace heapleak::results {

boost::json::object heap_summary_json(const Heap& heap);
boost::json::object leak_diff_json(const Heap& target, const LeakDiff& diff);
boost::json::object object_brief_json(const Heap& heap, ObjectIndex i);
boost::json::array addresses_json(const Heap& heap, const std::vector<ObjectIndex>& objects);

boost::json::object retainer_json(const Heap& heap, const RetainerReport& report);
boost::json::object root_path_json(const Heap& heap, const RootPath& path);
// How a path object is held by the one before it: {"ivar": "@cache"},
// {"ivars": ["@a", "@c"]} (the same object in several), {"candidates": [...]};
// null when the dump does not say.
boost::json::value via_json(const EdgeName& via);

boost::json::object owner_json(const Heap& heap, const OwnerReport& report);
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
boost::json::object retained_json(const Heap& heap, ObjectIndex i);
boost::json::object top_retainers_json(const Heap& heap, std::size_t limit, bool by_class);
boost::json::array path_tree_json(const Heap& heap, const PathTreeNode& node);
// A STRING's content read back from the dump (the heap keeps only a hash),
// cut at 200 characters; null when it cannot be read.
boost::json::value string_value_json(const Heap& heap, ObjectIndex i);
// duplicateStrings' result without its `heap` id: {strings: [{value, count,
// memsize, wasted, samples}]}.
boost::json::object duplicate_strings_json(const Heap& heap,
                                           const std::vector<DuplicateStrings>& strings);

}  // namespace heapleak::results
