// `heapleak check` when the gate cannot judge: a dump missing, unreadable,
// corrupt or cut short, or dumps that are not one series (another process,
// out of order). The verdict is "error" in every format (text, json, sarif,
// junit), never a PASS read from evidence heapleak could not read.
#pragma once

#include <string>
#include <vector>

namespace heapleak::results {

struct GateProblem {
  std::string problem;  // unreadable, truncated, otherProcess, outOfOrder
  std::string path;     // the dump it is about (B's for a pair), or ""
  std::string message;  // for people
};

// The whole report in `format` (text|json|sarif|junit).
std::string gate_error_report(const std::string& format, const std::vector<GateProblem>& problems,
                              const std::string& tool_version);

// The verdict line: "heapleak check: ERROR: the dumps cannot be judged: ...".
std::string gate_error_line(const std::vector<GateProblem>& problems);

}  // namespace heapleak::results
