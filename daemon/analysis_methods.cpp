// stats, root, pathToRoot: the analyses, run on the query pool so a long
// search never holds up a connection's cheap requests.
#include <boost/json.hpp>

#include "core/leak_diff.h"
#include "core/retainer_report.h"
#include "core/root_paths.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/results_json.h"
#include "daemon/wire_params.h"

namespace heapleak::daemon {
namespace json = boost::json;
using protocol::RequestContext;
using protocol::TypedReply;

namespace {

// Runs `work` on the query pool; its exceptions become error replies.
template <class Work>
void on_query_pool(DaemonContext& ctx, TypedReply<json::value> reply, Work work) {
  ctx.queries.post([reply, work = std::move(work)] {
    try {
      reply(work());
    } catch (const protocol::RpcException& e) {
      reply.error(e.error());
    } catch (const std::exception& e) {
      reply.error(protocol::internal_error(std::string("internal error: ") + e.what()));
    }
  });
}

json::value run_stats(const DaemonContext& ctx, const StatsParams& params) {
  auto group_by = parse_group_by(params.group_by);
  if (!group_by) {
    throw protocol::RpcException(protocol::invalid_params("params.groupBy: expected class, site or generation"));
  }
  const HeapEntry baseline = require_heap(ctx.store, params.baseline);
  const HeapEntry target = require_heap(ctx.store, params.target);
  std::optional<HeapEntry> later;
  if (params.later) later = require_heap(ctx.store, *params.later);
  LeakDiffOptions options;
  options.group_by = *group_by;
  options.samples_per_group = params.samples;
  const LeakDiff diff = diff_heaps(*baseline.heap, *target.heap, later ? later->heap.get() : nullptr, options);
  json::object out = leak_diff_json(*target.heap, diff);
  out["groupBy"] = group_by_name(*group_by);
  out["baseline"] = baseline.id;
  out["target"] = target.id;
  if (later) out["later"] = later->id;
  auto& groups = out["groups"].as_array();
  out["groupCount"] = groups.size();
  if (params.limit != 0 && groups.size() > params.limit) groups.resize(params.limit);
  return out;
}

json::value run_root(const DaemonContext& ctx, const RootParams& params) {
  const HeapEntry entry = require_heap(ctx.store, params.heap);
  RetainerRequest request;
  request.addresses = parse_address_list(params.addresses);
  request.min_samples = params.min_samples;
  request.max_visits = params.max_nodes;
  auto report = explain_retention(*entry.heap, request);
  if (!report) throw protocol::RpcException(to_rpc_error(report.error()));
  json::object out = retainer_json(*entry.heap, *report);
  out["heap"] = entry.id;
  return out;
}

json::value run_path_to_root(const DaemonContext& ctx, const AddressParams& params) {
  const HeapEntry entry = require_heap(ctx.store, params.heap);
  const ObjectIndex index = require_object(*entry.heap, params.address);
  auto path = path_to_root(*entry.heap, index);
  if (!path) throw protocol::RpcException(to_rpc_error(path.error()));
  return root_path_json(*entry.heap, *path);
}

}  // namespace

void register_analysis_methods(protocol::Binder& binder, DaemonContext& ctx) {
  binder.add_async<StatsParams, json::value>(
      "stats", [&ctx](StatsParams params, RequestContext, TypedReply<json::value> reply) {
        on_query_pool(ctx, reply, [&ctx, params = std::move(params)] { return run_stats(ctx, params); });
      });
  binder.add_async<RootParams, json::value>(
      "root", [&ctx](RootParams params, RequestContext, TypedReply<json::value> reply) {
        on_query_pool(ctx, reply, [&ctx, params = std::move(params)] { return run_root(ctx, params); });
      });
  binder.add_async<AddressParams, json::value>(
      "pathToRoot", [&ctx](AddressParams params, RequestContext, TypedReply<json::value> reply) {
        on_query_pool(ctx, reply, [&ctx, params = std::move(params)] { return run_path_to_root(ctx, params); });
      });
}

}  // namespace heapleak::daemon
