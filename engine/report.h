// `heapleak report`, whole, for every front end: explain's answer
// (engine/explain.h, the same document `explain --json` prints), each leak
// row's retainer graph from a few of its samples in B, the dumps' facts,
// and the page (results/report_html.h). `heapleak report`, `heapleak check
// --report` and heapleakd's `report` call it, so they give one page.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/heap/heap.h"
#include "engine/explain.h"

namespace heapleak::engine {

struct ReportQuery {
  ExplainQuery explain;
  // Samples of a row whose common retainer is drawn: enough to find it, few
  // enough to read the picture (VS Code's retainerSamples default).
  std::size_t graph_samples = 5;
  // The search budget of each row's graph: a page of 100 rows stays seconds.
  std::size_t graph_visits = 2'000'000;
  std::string version;  // the product's, written in the page
};

struct ReportAnswer {
  ExplainAnswer explain;
  std::string html;
};

// `heaps`, `paths`, `reread`: as engine::explain's (A B [C] or D1..DN, B
// with references; C read again with its references when a compaction asks).
ReportAnswer report(DiffSet& dumps, const std::vector<std::string>& paths, const ReportQuery& query,
                    const ReadWithReferences& reread = {});

}  // namespace heapleak::engine
