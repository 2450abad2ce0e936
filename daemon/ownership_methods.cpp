// owner, explain, retained, topRetainers, dominatorTree, duplicateStrings:
// who holds memory,
// from the dominator tree. The tree is computed on a heap's first such
// request (seconds on a multi-gigabyte heap), so these run on the query pool.
#include <boost/json.hpp>

#include "core/diagnosis/leak_clusters.h"
#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/ownership.h"
#include "core/graph/dominator_subtree.h"
#include "core/series/dump_series.h"
#include "core/series/series_growth.h"
#include "daemon/analysis_admission.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/method_table.h"
#include "daemon/wire_params.h"
#include "protocol/method_names.h"
#include "results/dominator_tree_json.h"
#include "results/grouping_warning.h"
#include "results/results_json.h"

namespace heapleak::daemon {
using namespace results;
namespace json = boost::json;
namespace methods = protocol::methods;
using protocol::RequestContext;

namespace {

const Heap& require_edges(const HeapEntry& entry) {
  if (!entry.heap->has_edges()) {
    throw protocol::RpcException(
        protocol::domain_error("invalidArgument", "heap loaded without references"));
  }
  return *entry.heap;
}

json::value run_owner(DaemonContext& ctx, const RootParams& params, const RequestContext& request) {
  const HeapEntry entry = require_heap(ctx, params.heap, request);
  const Heap& heap = require_edges(entry);
  std::vector<ObjectIndex> objects;
  for (Address address : parse_address_list(params.addresses)) {
    objects.push_back(require_object(heap, format_address(address)));
  }
  const AnalysisAdmission admitted(ctx, entry, kDominatorsAnalysis | kRootPathsAnalysis);
  json::object out = owner_json(heap, find_owner(heap, objects));
  out["heap"] = entry.id;
  return out;
}

json::value run_explain(DaemonContext& ctx, const StatsParams& params,
                        const RequestContext& request) {
  const LeakDiffOptions options = require_diff_options(params);
  const DiffHeaps heaps = require_diff_heaps(ctx, params, request);
  const Heap& heap = require_edges(heaps.target);
  const AnalysisAdmission admitted(ctx, heaps.target, kDominatorsAnalysis | kRootPathsAnalysis);
  // The diff's own groups are not used (explain regroups every leaked object), so no samples
  // here.
  LeakDiff diff = diff_heaps(*heaps.baseline.heap, heap, heaps.later_heap(),
                             LeakDiffOptions{options.group_by, 0});
  std::vector<const Heap*> dumps;
  for (const auto& entry : heaps.series) dumps.push_back(entry.heap.get());
  // A series of four or more is checked pair by pair (D1, D2, ... in the findings).
  const SeriesCheck series = dumps.size() > 3 ? check_series_of(dumps, diff.compacted)
                                              : check_series(*heaps.baseline.heap, heap,
                                                             heaps.later_heap(), diff.compacted);
  add_series_warnings(series, diff.warnings);
  warn_if_untraced(diff, heap, options.group_by);
  LeakClusters clusters =
      cluster_leaks(*heaps.baseline.heap, heap, heaps.later_heap(), diff, options.group_by);
  if (dumps.size() > 3) add_series_growth(heap, dumps, clusters);
  json::object out =
      leak_clusters_json(heap, diff, clusters, limit_or_all(params.limit.value_or(20)),
                         std::min<std::size_t>(params.samples, 20));
  out["groupBy"] = group_by_name(options.group_by);
  out["baseline"] = heaps.baseline.id;
  out["target"] = heaps.target.id;
  if (heaps.later) out["later"] = heaps.later->id;
  if (heaps.series.size() > 3) {
    json::array ids;
    for (const auto& entry : heaps.series) ids.emplace_back(entry.id);
    out["heaps"] = std::move(ids);
  }
  out["files"] = diff_files(heaps);
  out["series"] = series_json(series);
  return out;
}

json::value run_retained(DaemonContext& ctx, const AddressParams& params,
                         const RequestContext& request) {
  const HeapEntry entry = require_heap(ctx, params.heap, request);
  const Heap& heap = require_edges(entry);
  const ObjectIndex object = require_object(heap, params.address);
  const AnalysisAdmission admitted(ctx, entry, kDominatorsAnalysis);
  return retained_json(heap, object);
}

json::value run_top_retainers(DaemonContext& ctx, const TopParams& params,
                              const RequestContext& request) {
  const HeapEntry entry = require_heap(ctx, params.heap, request);
  const Heap& heap = require_edges(entry);
  if (params.group_by != "object" && params.group_by != "class") {
    throw protocol::RpcException(
        protocol::invalid_params("params.groupBy: expected object or class"));
  }
  const AnalysisAdmission admitted(ctx, entry, kDominatorsAnalysis);
  json::object out =
      top_retainers_json(heap, limit_or_all(params.limit), params.group_by == "class");
  out["heap"] = entry.id;
  return out;
}

// The deepest a single request goes: a treemap zooms by asking again from a
// deeper node, and each level is one pass over the heap.
constexpr std::size_t kMaxDominatorDepth = 8;

json::value run_dominator_tree(DaemonContext& ctx, const DominatorTreeParams& params,
                               const RequestContext& request) {
  const HeapEntry entry = require_heap(ctx, params.heap, request);
  const Heap& heap = require_edges(entry);
  if (params.depth < 1 || params.depth > kMaxDominatorDepth) {
    throw protocol::RpcException(protocol::invalid_params("params.depth: expected 1 to 8"));
  }
  ObjectIndex root = DominatorTree::kSuperRoot;
  if (params.root && *params.root != "ROOT") root = require_object(heap, *params.root);
  DominatorSubtreeOptions options;
  options.depth = params.depth;
  options.min_bytes = params.min_bytes;
  options.limit = params.limit;
  const DominatorTree& tree = heap.dominators();
  return json::object{
      {"root", dominator_subtree_json(heap, dominator_subtree(heap, root, options))},
      {"reachable", tree.reachable_count()},
      {"unreachable",
       json::object{{"count", tree.unreachable_count()}, {"memsize", tree.unreachable_bytes()}}},
      {"heap", entry.id}};
}

json::value run_duplicate_strings(DaemonContext& ctx, const TopParams& params,
                                  const RequestContext& request) {
  const HeapEntry entry = require_heap(ctx, params.heap, request);
  json::object out = duplicate_strings_json(
      *entry.heap, duplicate_strings(*entry.heap, limit_or_all(params.limit)));
  out["heap"] = entry.id;
  return out;
}

}  // namespace

void register_ownership_methods(MethodTable& table) {
  table.add(methods::kOwner, Runs::kOnQueryPool, run_owner);
  table.add(methods::kExplain, Runs::kOnQueryPool, run_explain);
  table.add(methods::kRetained, Runs::kOnQueryPool, run_retained);
  table.add(methods::kTopRetainers, Runs::kOnQueryPool, run_top_retainers);
  table.add(methods::kDominatorTree, Runs::kOnQueryPool, run_dominator_tree);
  table.add(methods::kDuplicateStrings, Runs::kOnQueryPool, run_duplicate_strings);
}

}  // namespace heapleak::daemon
