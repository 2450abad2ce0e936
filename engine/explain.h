// explain, whole, for every front end: the dumps' rows (core's pipeline)
// and the answer's one document (results/), with the one default of how
// many rows an answer holds. `heapleak explain`, heapleakd's `explain` (so
// heapleak-client, MCP and VS Code) and `heapleak check` call it, so they
// give one document on the same dumps.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/explain/explain_pipeline.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"
#include "engine/diff_set.h"
#include "engine/later_references.h"
#include "results/memory_json.h"

namespace heapleak::engine {

// Rows an answer holds unless asked otherwise (each list: leaks, noise).
constexpr std::size_t kExplainRows = 10;
// Leaked addresses per row, at most.
constexpr std::size_t kExplainSamples = 20;

struct ExplainQuery {
  GroupBy group_by = GroupBy::kClass;
  std::size_t limit = kExplainRows;  // 0: every row
  std::size_t samples = kExplainSamples;
};

// The diff's passes and the series check (explain_leaks without its rows).
// When a compaction asks for C's references (engine/later_references.h), C
// is read again with them (`reread`), held by `dumps` from then on, and the
// diff made again. One function for explain and check.
ExplainOutcome judge_dumps(DiffSet& dumps, GroupBy group_by, const ReadWithReferences& reread);

// The rows of a judged diff: explain_leaks' row passes on judge_dumps'
// `dumps` and diff, its series check (and its warnings) kept as judged.
ExplainOutcome rows_of(ExplainOutcome judged, const DiffSet& dumps, GroupBy group_by);

struct ExplainAnswer {
  ExplainOutcome outcome;  // the diff, the series check, the rows
  // Where the series' memory went (engine/memory_evidence.h): the doc's `memory`.
  results::MemoryEvidence memory;
  boost::json::object doc;  // results/'s explain document: rows, groupBy, files, series, memory
};

// `dumps`: A B [C], or a series D1..DN (N >= 4); `paths`: their files as the
// user named them (the answer's `files`). `reread`: see judge_dumps.
ExplainAnswer explain(DiffSet& dumps, const std::vector<std::string>& paths,
                      const ExplainQuery& query, const ReadWithReferences& reread = {});

}  // namespace heapleak::engine
