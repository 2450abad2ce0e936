// explain's leak rows as a table: one JSON object per line, flat and
// snake_case, for DuckDB, Spark or jq (`explain --format jsonl`, and what
// `heapleak fleet` concatenates). Built from explain's wire answer
// (explain_json.h) and what is known of the dumps (core/dump_facts.h);
// docs/fleet.md documents every column.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "core/series/dump_facts.h"

namespace heapleak::results {

// One row per entry of `explain["leaks"]` (never noise), in explain's order,
// each line ending in "\n". `dumps` are the dumps explain compared, in order.
std::string leak_rows_jsonl(const boost::json::object& explain,
                            const std::vector<DumpFacts>& dumps);

// The series the dumps are: "HOST/PID/STARTED" from their manifests when the
// first has one, else the directory of the first dump ("." when none).
std::string series_name(const std::vector<DumpFacts>& dumps);

}  // namespace heapleak::results
