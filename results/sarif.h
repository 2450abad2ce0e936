// `heapleak check --format sarif`: the verdict as a SARIF 2.1.0 log, so
// code-scanning tools annotate the allocation sites of each leak. One result
// per leak row (rule heapleak/leak; baselineState new/unchanged/updated,
// partialFingerprints with the row's signature) and one note per noise row
// (rule heapleak/noise/REASON, no physical location).
#pragma once

#include <boost/json.hpp>
#include <string>

#include "core/diagnosis/leak_row.h"
#include "results/leak_gate.h"

namespace heapleak::results {

struct SarifOptions {
  // Allocation sites under this absolute directory are written relative to
  // it with uriBaseId SRCROOT; others as absolute file:// URIs. Empty: none.
  std::string source_root;
  std::string tool_version;
};

// `clusters` are the rows `verdict` was judged from.
boost::json::object sarif_log(const LeakClusters& clusters, const GateVerdict& verdict,
                              const SarifOptions& options);

// "file:line" -> {file, line}; line 0 when the text has no ":N" suffix.
struct SiteParts {
  std::string file;
  std::uint32_t line = 0;
};
SiteParts split_site(const std::string& site);

}  // namespace heapleak::results
