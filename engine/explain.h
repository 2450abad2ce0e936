// explain, whole, for every front end: the dumps' rows (core's pipeline)
// and the answer's one document (results/), with the one default of how
// many rows an answer holds. `heapleak explain`, heapleakd's `explain` (so
// heapleak-client, MCP and VS Code) and `heapleak check` call it, so they
// give one document on the same dumps.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/explain/explain_pipeline.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"

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

struct ExplainAnswer {
  ExplainOutcome outcome;   // the diff, the series check, the rows
  boost::json::object doc;  // results/'s explain document: rows, groupBy, files, series
};

// `heaps`: A B [C], or a series D1..DN (N >= 4); `paths`: their files as the
// user named them (the answer's `files`). B needs references.
ExplainAnswer explain(std::span<const Heap* const> heaps, const std::vector<std::string>& paths,
                      const ExplainQuery& query);

}  // namespace heapleak::engine
