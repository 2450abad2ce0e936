// owner, explain, retained, topRetainers, duplicateStrings: who holds memory,
// from the dominator tree. The tree is computed on a heap's first such
// request (seconds on a multi-gigabyte heap), so these run on the query pool.
#include <boost/json.hpp>

#include "core/leak_diff.h"
#include "core/ownership.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/query_task.h"
#include "daemon/results_json.h"
#include "daemon/wire_params.h"

namespace heapleak::daemon {
namespace json = boost::json;

namespace {

const Heap& require_edges(const HeapEntry& entry) {
  if (!entry.heap->has_edges()) {
    throw protocol::RpcException(
        protocol::domain_error("invalidArgument", "heap loaded without references"));
  }
  return *entry.heap;
}

}  // namespace

void register_ownership_methods(protocol::Binder& binder, DaemonContext& ctx) {
  add_on_query_pool<RootParams>(
      binder, ctx, "owner",
      [](DaemonContext& ctx, const RootParams& params, const std::stop_token&) {
        const HeapEntry entry = require_heap(ctx.store, params.heap);
        const Heap& heap = require_edges(entry);
        std::vector<ObjectIndex> objects;
        for (Address address : parse_address_list(params.addresses)) {
          objects.push_back(require_object(heap, format_address(address)));
        }
        json::object out = owner_json(heap, find_owner(heap, objects));
        out["heap"] = entry.id;
        return json::value(std::move(out));
      });

  add_on_query_pool<StatsParams>(
      binder, ctx, "explain",
      [](DaemonContext& ctx, const StatsParams& params, const std::stop_token&) {
        const LeakDiffOptions options = require_diff_options(params);
        const HeapEntry baseline = require_heap(ctx.store, params.baseline);
        const HeapEntry target = require_heap(ctx.store, params.target);
        std::optional<HeapEntry> later;
        if (params.later) later = require_heap(ctx.store, *params.later);
        const Heap& heap = require_edges(target);
        // The diff's own groups are not used (explain regroups every leaked object), so no samples
        // here.
        const LeakDiff diff = diff_heaps(*baseline.heap, heap, later ? later->heap.get() : nullptr,
                                         LeakDiffOptions{options.group_by, 0});
        const LeakClusters clusters = cluster_leaks(
            *baseline.heap, heap, later ? later->heap.get() : nullptr, diff, options.group_by);
        json::object out =
            leak_clusters_json(heap, diff, clusters, params.limit == 0 ? 20 : params.limit,
                               std::min<std::size_t>(params.samples, 20));
        out["groupBy"] = group_by_name(options.group_by);
        out["target"] = target.id;
        return json::value(std::move(out));
      });

  add_on_query_pool<AddressParams>(
      binder, ctx, "retained",
      [](DaemonContext& ctx, const AddressParams& params, const std::stop_token&) {
        const HeapEntry entry = require_heap(ctx.store, params.heap);
        const Heap& heap = require_edges(entry);
        return json::value(retained_json(heap, require_object(heap, params.address)));
      });

  add_on_query_pool<TopParams>(
      binder, ctx, "topRetainers",
      [](DaemonContext& ctx, const TopParams& params, const std::stop_token&) {
        const HeapEntry entry = require_heap(ctx.store, params.heap);
        const Heap& heap = require_edges(entry);
        if (params.group_by != "object" && params.group_by != "class") {
          throw protocol::RpcException(
              protocol::invalid_params("params.groupBy: expected object or class"));
        }
        json::object out = top_retainers_json(heap, params.limit, params.group_by == "class");
        out["heap"] = entry.id;
        return json::value(std::move(out));
      });

  add_on_query_pool<TopParams>(
      binder, ctx, "duplicateStrings",
      [](DaemonContext& ctx, const TopParams& params, const std::stop_token&) {
        const HeapEntry entry = require_heap(ctx.store, params.heap);
        const Heap& heap = *entry.heap;
        json::array strings;
        for (const auto& dup : duplicate_strings(heap, params.limit)) {
          strings.push_back(json::object{{"value", string_value_json(heap, dup.samples.front())},
                                         {"count", dup.count},
                                         {"memsize", dup.memsize},
                                         {"wasted", dup.wasted},
                                         {"samples", addresses_json(heap, dup.samples)}});
        }
        return json::value(json::object{{"heap", entry.id}, {"strings", std::move(strings)}});
      });
}

}  // namespace heapleak::daemon
