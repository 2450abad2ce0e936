// stats, root, pathToRoot: the analyses, run on the query pool so a long
// search never holds up a connection's cheap requests.
#include <boost/json.hpp>

#include "core/diagnosis/leak_diff.h"
#include "core/graph/root_paths.h"
#include "core/reports/retainer_report.h"
#include "daemon/analysis_admission.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/method_table.h"
#include "daemon/wire_params.h"
#include "engine/stats.h"
#include "protocol/method_names.h"
#include "results/path_json.h"
#include "results/retainer_json.h"

namespace heapleak::daemon {
using namespace results;
namespace json = boost::json;
namespace methods = protocol::methods;
using protocol::RequestContext;

namespace {

json::value run_stats(DaemonContext& ctx, const StatsParams& params,
                      const RequestContext& request) {
  if (!params.heaps.empty()) {
    throw protocol::RpcException(protocol::invalid_params(
        "params.heaps: a series is explain's; stats takes baseline, target and later"));
  }
  const LeakDiffOptions options = require_diff_options(params);
  const DiffHeaps heaps = require_diff_heaps(ctx, params, request);
  engine::DiffSet dumps = diff_set(heaps);
  json::object out = engine::stats(dumps, diff_paths(heaps), options, params.limit.value_or(0),
                                   reread_diff_heap(ctx, heaps, request))
                         .doc;
  out["baseline"] = heaps.baseline.id;
  out["target"] = heaps.target.id;
  if (heaps.later) out["later"] = heaps.later->id;
  return out;
}

json::value run_root(DaemonContext& ctx, const RootParams& params, const RequestContext& context) {
  const HeapEntry entry = require_heap_with_references(ctx, params.heap, context);
  RetainerRequest request;
  request.addresses = parse_address_list(params.addresses);
  request.min_samples = params.min_samples;
  request.max_visits = params.max_visits;
  std::atomic<bool> cancel{false};
  std::stop_callback on_cancel(context.stop, [&cancel] { cancel.store(true); });
  request.cancel = &cancel;
  const AnalysisAdmission admitted(ctx, entry, kRootPathsAnalysis);
  auto report = explain_retention(*entry.heap, request);
  if (!report) throw protocol::RpcException(to_rpc_error(report.error()));
  json::object out = retainer_json(*entry.heap, *report);
  out["heap"] = entry.id;
  return out;
}

json::value run_path_to_root(DaemonContext& ctx, const AddressParams& params,
                             const RequestContext& request) {
  const HeapEntry entry = require_heap_with_references(ctx, params.heap, request);
  const ObjectIndex index = require_object(*entry.heap, params.address);
  const AnalysisAdmission admitted(ctx, entry, kRootPathsAnalysis);
  auto path = path_to_root(*entry.heap, index);
  if (!path) throw protocol::RpcException(to_rpc_error(path.error()));
  return root_path_json(*entry.heap, *path);
}

}  // namespace

void register_analysis_methods(MethodTable& table) {
  table.add(methods::kStats, Runs::kOnQueryPool, run_stats);
  table.add(methods::kRoot, Runs::kOnQueryPool, run_root);
  table.add(methods::kPathToRoot, Runs::kOnQueryPool, run_path_to_root);
}

}  // namespace heapleak::daemon
