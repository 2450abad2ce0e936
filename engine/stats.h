// stats, whole, for every front end: the 3-dump diff grouped by class, site
// or generation (core/diagnosis/leak_diff.h), whether the dumps are one series, and
// the answer's one document (results/stats_json.h), as `heapleak stats` and
// heapleakd's `stats` both print it.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/diagnosis/leak_diff.h"
#include "core/heap/heap.h"
#include "core/series/dump_series.h"
#include "engine/diff_set.h"
#include "engine/later_references.h"

namespace heapleak::engine {

struct StatsAnswer {
  LeakDiff diff;
  SeriesCheck series;
  boost::json::object doc;  // results/'s stats document, with files and series
};

// `dumps`: A B [C]; `paths`: their files as the user named them. `limit`:
// the groups the document lists (0: all); `reread`: C again with its
// references, when a compaction asks for them (engine/later_references.h).
StatsAnswer stats(DiffSet& dumps, const std::vector<std::string>& paths,
                  const LeakDiffOptions& options, std::size_t limit,
                  const ReadWithReferences& reread = {});

}  // namespace heapleak::engine
