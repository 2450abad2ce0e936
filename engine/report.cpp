#include "engine/report.h"

#include <algorithm>
#include <filesystem>

#include "core/base/address.h"
#include "core/diagnosis/leak_diff.h"
#include "core/reports/retainer_report.h"
#include "core/series/dump_facts.h"
#include "results/report_data.h"
#include "results/report_graph_json.h"
#include "results/report_html.h"

namespace heapleak::engine {
namespace json = boost::json;

namespace {

// The graph `root` draws for the row's first samples, or null when the row
// has none (a container grown in place) or none is in B.
json::value row_graph(const Heap& target, const json::value& row, const ReportQuery& query) {
  RetainerRequest request;
  request.max_visits = query.graph_visits;
  const json::value* samples_value =
      row.is_object() ? row.as_object().if_contains("samples") : nullptr;
  if (const json::array* samples = samples_value ? samples_value->if_array() : nullptr) {
    for (const json::value& sample : *samples) {
      if (request.addresses.size() >= query.graph_samples) break;
      if (!sample.is_string()) continue;
      if (auto address = parse_address(sample.as_string())) request.addresses.push_back(*address);
    }
  }
  if (request.addresses.empty()) return nullptr;
  auto retention = explain_retention(target, request);
  if (!retention) return nullptr;
  return results::report_graph_json(target, *retention);
}

}  // namespace

ReportAnswer report(DiffSet& heaps, const std::vector<std::string>& paths, const ReportQuery& query,
                    const ReadWithReferences& reread) {
  ReportAnswer answer;
  answer.explain = explain(heaps, paths, query.explain, reread);
  const Heap& target = heaps.target();
  json::array graphs;
  if (const json::array* leaks = answer.explain.doc.at("leaks").if_array()) {
    for (const json::value& row : *leaks) graphs.push_back(row_graph(target, row, query));
  }
  std::vector<results::ReportDump> dumps;
  for (std::size_t k = 0; k < heaps.size() && k < paths.size(); ++k) {
    const DumpFacts facts = dump_facts(paths[k]);
    // Absolute, as the daemon names them: the CLI's page and the daemon's agree.
    std::error_code error;
    const std::string path = std::filesystem::absolute(paths[k], error).lexically_normal().string();
    dumps.push_back({error ? paths[k] : path, facts.dumped_at, facts.time_from_manifest,
                     heaps.summary(k).objects, heaps.report(k).traced});
  }
  const json::object data =
      results::report_data(answer.explain.doc, dumps, std::move(graphs), query.version);
  // "heapleak report: A.json, B.json, C.json"; a series by its first and last.
  std::string title = "heapleak report:";
  for (std::size_t k = 0; k < paths.size(); ++k) {
    if (paths.size() > 3 && k > 0 && k + 1 < paths.size()) {
      if (k == 1) title += " ...";
      continue;
    }
    title += (k ? ", " : " ") + paths[k].substr(paths[k].find_last_of('/') + 1);
  }
  answer.html = results::report_html(data, title);
  return answer;
}

}  // namespace heapleak::engine
