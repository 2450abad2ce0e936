// owner, explain, retained, topRetainers, dominatorTree, duplicateStrings:
// who holds memory,
// from the dominator tree. The tree is computed on a heap's first such
// request (seconds on a multi-gigabyte heap), so these run on the query pool.
#include <boost/json.hpp>

#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/ownership.h"
#include "core/graph/dominator_subtree.h"
#include "daemon/analysis_admission.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/method_table.h"
#include "daemon/wire_params.h"
#include "engine/explain.h"
#include "engine/load_plan.h"
#include "protocol/method_names.h"
#include "results/dominator_tree_json.h"
#include "results/duplicate_strings_json.h"
#include "results/owner_json.h"
#include "results/top_json.h"

namespace heapleak::daemon {
using namespace results;
namespace json = boost::json;
namespace methods = protocol::methods;
using protocol::RequestContext;

namespace {

json::value run_owner(DaemonContext& ctx, const RootParams& params, const RequestContext& request) {
  const HeapEntry entry = require_heap_with_references(ctx, params.heap, request);
  const Heap& heap = *entry.heap;
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
  const DiffHeaps heaps = require_analysed_diff_heaps(ctx, params, request);
  const AnalysisAdmission admitted(ctx, heaps.target, kDominatorsAnalysis | kRootPathsAnalysis);
  engine::DiffSet dumps = diff_set(heaps);
  engine::ExplainQuery query;
  query.group_by = options.group_by;
  query.limit = params.limit.value_or(engine::kExplainRows);
  query.samples = params.samples;
  json::object out =
      engine::explain(dumps, diff_paths(heaps), query, reread_diff_heap(ctx, heaps, request)).doc;
  out["baseline"] = heaps.baseline.id;
  out["target"] = heaps.target.id;
  if (heaps.later) out["later"] = heaps.later->id;
  if (heaps.series.size() > 3) {
    json::array ids;
    for (const auto& entry : heaps.series) ids.emplace_back(entry.id);
    out["heaps"] = std::move(ids);
  }
  return out;
}

json::value run_retained(DaemonContext& ctx, const AddressParams& params,
                         const RequestContext& request) {
  const HeapEntry entry = require_heap_with_references(ctx, params.heap, request);
  const Heap& heap = *entry.heap;
  const ObjectIndex object = require_object(heap, params.address);
  const AnalysisAdmission admitted(ctx, entry, kDominatorsAnalysis);
  return retained_json(heap, object);
}

json::value run_top_retainers(DaemonContext& ctx, const TopParams& params,
                              const RequestContext& request) {
  const HeapEntry entry = require_heap_with_references(ctx, params.heap, request);
  const Heap& heap = *entry.heap;
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
  const HeapEntry entry = require_heap_with_references(ctx, params.heap, request);
  const Heap& heap = *entry.heap;
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
