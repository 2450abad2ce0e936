// report: explain's answer as `heapleak report`'s page (engine/report.h),
// for dumps named by id, name or path as explain names them, so a client
// or an agent gets the very page the CLI writes. On the query pool: B's
// analyses and one retainer search per leak row.
#include <boost/json.hpp>

#include "daemon/analysis_admission.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/method_table.h"
#include "daemon/wire_params.h"
#include "engine/load_plan.h"
#include "engine/report.h"
#include "protocol/method_names.h"
#include "results/product/version.h"

namespace heapleak::daemon {
namespace json = boost::json;
namespace methods = protocol::methods;
using protocol::RequestContext;

namespace {

json::value run_report(DaemonContext& ctx, const StatsParams& params,
                       const RequestContext& request) {
  const LeakDiffOptions options = require_diff_options(params);
  const DiffHeaps heaps = require_analysed_diff_heaps(ctx, params, request);  // as explain's
  const AnalysisAdmission admitted(ctx, heaps.target, kDominatorsAnalysis | kRootPathsAnalysis);
  engine::DiffSet dumps = diff_set(heaps);
  engine::ReportQuery query;
  query.explain.group_by = options.group_by;
  query.explain.limit = params.limit.value_or(engine::kExplainRows);
  query.explain.samples = params.samples;
  query.version = kVersion;
  const engine::ReportAnswer answer =
      engine::report(dumps, diff_paths(heaps), query, reread_diff_heap(ctx, heaps, request));
  const json::object& doc = answer.explain.doc;
  json::object out{{"html", answer.html},
                   {"bytes", answer.html.size()},
                   {"leakCount", doc.at("leakCount")},
                   {"noiseCount", doc.at("noiseCount")},
                   {"files", doc.at("files")},
                   {"baseline", heaps.baseline.id},
                   {"target", heaps.target.id}};
  if (heaps.later) out["later"] = heaps.later->id;
  if (heaps.series.size() > 3) {
    json::array ids;
    for (const auto& entry : heaps.series) ids.emplace_back(entry.id);
    out["heaps"] = std::move(ids);
  }
  if (const json::value* warnings = doc.if_contains("warnings")) out["warnings"] = *warnings;
  return out;
}

}  // namespace

void register_report_methods(MethodTable& table) {
  table.add(methods::kReport, Runs::kOnQueryPool, run_report);
}

}  // namespace heapleak::daemon
