#include "results/series_json.h"

namespace heapleak::results {

boost::json::object series_json(const SeriesCheck& series) {
  boost::json::array findings;
  for (const SeriesFinding& finding : series.findings) {
    findings.push_back(boost::json::object{{"problem", series_problem_name(finding.problem)},
                                           {"first", finding.first},
                                           {"second", finding.second},
                                           {"message", finding.message},
                                           {"fromManifest", finding.from_manifest}});
  }
  return boost::json::object{{"oneSeries", !series.broken()}, {"findings", std::move(findings)}};
}

}  // namespace heapleak::results
