// The HTML report's drawing script and style (results/report/: the vendored,
// pinned d3-hierarchy and report.js, report.css), embedded at build time by
// cmake/embed_report_assets.cmake with the SHA-256 of each, in hex, that the
// page's Content-Security-Policy allows and nothing else.
#pragma once

#include <string_view>

namespace heapleak::results {

extern const std::string_view kReportScript;
extern const std::string_view kReportScriptSha256;  // hex, of kReportScript's bytes
extern const std::string_view kReportStyle;
extern const std::string_view kReportStyleSha256;  // hex, of kReportStyle's bytes

}  // namespace heapleak::results
