#include "results/gate_error.h"

#include <boost/json.hpp>

#include "results/junit.h"

namespace heapleak::results {
namespace json = boost::json;

namespace {

std::string reasons_text(const std::vector<GateProblem>& problems) {
  std::string text;
  for (const GateProblem& problem : problems) text += (text.empty() ? "" : "; ") + problem.message;
  return text;
}

json::array reasons(const std::vector<GateProblem>& problems) {
  json::array out;
  for (const GateProblem& problem : problems) out.emplace_back(problem.message);
  return out;
}

json::object json_report(const std::vector<GateProblem>& problems) {
  json::array errors;
  for (const GateProblem& problem : problems) {
    errors.push_back(json::object{
        {"problem", problem.problem}, {"path", problem.path}, {"message", problem.message}});
  }
  return json::object{{"verdict", "error"},          {"reasons", reasons(problems)},
                      {"errors", std::move(errors)}, {"new", json::array()},
                      {"known", json::array()},      {"fixed", json::array()},
                      {"noise", json::array()}};
}

// A run that did not complete: no results, the problems as tool execution
// notifications (code-scanning tools show them as a failed analysis).
json::object sarif_report(const std::vector<GateProblem>& problems, const std::string& version) {
  json::array notifications;
  for (const GateProblem& problem : problems) {
    notifications.push_back(json::object{{"level", "error"},
                                         {"message", json::object{{"text", problem.message}}},
                                         {"descriptor", json::object{{"id", problem.problem}}}});
  }
  json::object driver{{"name", "heapleak"},
                      {"version", version},
                      {"semanticVersion", version},
                      {"rules", json::array()}};
  json::object run{
      {"tool", json::object{{"driver", std::move(driver)}}},
      {"invocations",
       json::array{json::object{{"executionSuccessful", false},
                                {"toolExecutionNotifications", std::move(notifications)}}}},
      {"results", json::array()},
      {"properties", json::object{{"verdict", "error"}, {"reasons", reasons(problems)}}}};
  return json::object{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                      {"version", "2.1.0"},
                      {"runs", json::array{std::move(run)}}};
}

std::string junit_report(const std::vector<GateProblem>& problems) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
      "  <testsuite name=\"heapleak check\" tests=\"1\" failures=\"0\" errors=\"1\" "
      "skipped=\"0\">\n"
      "    <testcase classname=\"heapleak.gate\" name=\"dumps can be judged\">\n"
      "      <error type=\"" +
      xml_escape(problems.empty() ? "error" : problems.front().problem) + "\" message=\"" +
      xml_escape(reasons_text(problems)) + "\">";
  for (const GateProblem& problem : problems) out += xml_escape(problem.message) + "\n";
  out += "</error>\n    </testcase>\n  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace

std::string gate_error_line(const std::vector<GateProblem>& problems) {
  return "heapleak check: ERROR: the dumps cannot be judged: " + reasons_text(problems);
}

std::string gate_error_report(const std::string& format, const std::vector<GateProblem>& problems,
                              const std::string& tool_version) {
  if (format == "json") return json::serialize(json_report(problems)) + "\n";
  if (format == "sarif") return json::serialize(sarif_report(problems, tool_version)) + "\n";
  if (format == "junit") return junit_report(problems);
  std::string text = gate_error_line(problems) + "\n";
  for (const GateProblem& problem : problems) text += "  x " + problem.message + "\n";
  return text;
}

}  // namespace heapleak::results
