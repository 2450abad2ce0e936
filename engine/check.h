// check's evidence, whole: what `heapleak check` judges before its verdict.
// A gate never passes on evidence it could not read: dumps cut short and
// dumps that are not one series are problems (the verdict is "error");
// otherwise the rows are explain's (engine/explain.h's pipeline), grouped
// by class so that row signatures, and so the baseline file, are those of
// explain's default.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/explain/explain_pipeline.h"
#include "core/heap/heap.h"
#include "engine/explain.h"
#include "results/gate_error.h"
#include "results/memory_json.h"

namespace heapleak::engine {

struct CheckEvidence {
  std::vector<results::GateProblem> problems;  // truncated dumps, not one series
  std::optional<ExplainOutcome> rows;          // when there is no problem
  // Where the series' memory went (engine/memory_evidence.h), with the rows.
  std::optional<results::MemoryEvidence> memory;
  std::vector<std::string> warnings;  // the manifests' (a malformed figure)
};

// `dumps`: A B [C]; `reread`: C again with its references, when a
// compaction asks for them (engine/explain.h's judge_dumps).
CheckEvidence check_evidence(DiffSet& dumps, const ReadWithReferences& reread = {});

}  // namespace heapleak::engine
