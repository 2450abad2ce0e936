#include "core/loading/load_warnings.h"

#include <cstdio>

namespace heapleak {
namespace {

// Normal dumps have a few references to objects freed while dumping; a cut
// dump loses every reference into the pages after the cut.
constexpr double kDanglingShare = 0.01;

std::string counts(const LoadReport& report) {
  return std::to_string(report.objects) + " objects were read; " +
         std::to_string(report.missing_references) +
         " references point to objects absent from the dump";
}

}  // namespace

bool looks_truncated(const LoadReport& report) {
  return report.ends_mid_line || report.gzip_truncated;
}

std::vector<std::string> load_warnings(const LoadReport& report) {
  std::vector<std::string> out;
  const std::string& path = report.path;
  if (report.gzip_truncated) {
    out.push_back("truncated: " + path +
                  ": the gzip stream is cut short (the dump was not finished); " + counts(report) +
                  "; answers may miss what came after the cut");
  } else if (report.ends_mid_line) {
    out.push_back("truncated: " + path +
                  ": the last record is incomplete (no final newline; the dump was not "
                  "finished); " +
                  counts(report) + "; answers may miss what came after the cut");
  }
  const std::uint64_t all_refs = report.references + report.missing_references;
  // Identity-only loads resolve no references (only the roots'), so they
  // have no share to judge.
  if (!looks_truncated(report) && report.edges_built && all_refs > 0 &&
      static_cast<double>(report.missing_references) > kDanglingShare * all_refs) {
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%", 100.0 * report.missing_references / all_refs);
    out.push_back(path + ": " + std::to_string(report.missing_references) + " references (" +
                  share + ") point to objects absent from the dump: it may be cut short");
  }
  out.insert(out.end(), report.cache_warnings.begin(), report.cache_warnings.end());
  if (report.long_lines > 0) {
    out.push_back(path + ": " + std::to_string(report.long_lines) +
                  " lines longer than the line cap were skipped (counted in brokenLines)");
  }
  return out;
}

}  // namespace heapleak
