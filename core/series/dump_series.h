// Whether dumps A, B [, C] are one series: taken in that order from one
// process. Three ways they are not, each a wrong answer if unsaid: another
// process (its heap pages lie elsewhere: nearly no 64 KiB page in common),
// compacted between dumps (same pages, objects moved: addresses mean
// little), or out of order (a later dump's allocation generations, or file
// times, before an earlier one's). Cheap: one pass over each heap's addresses.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/heap/dump_summary.h"
#include "core/heap/heap.h"

namespace heapleak {

enum class SeriesProblem { kOtherProcess, kCompacted, kOutOfOrder };

// "otherProcess", "compacted", "outOfOrder": the wire's names.
const char* series_problem_name(SeriesProblem problem);

struct SeriesFinding {
  SeriesProblem problem;
  std::string first;    // "A", "B"
  std::string second;   // "B", "C"
  std::string message;  // for people, naming both files
  // Read from the capture gem's manifests (core/reading/dump_manifest.h), not
  // inferred: a compaction they record breaks the series too.
  bool from_manifest = false;
};

struct SeriesCheck {
  std::vector<SeriesFinding> findings;
  // Not one series: another process or out of order. Compaction alone keeps
  // the series (the diff says what it can still tell), unless the manifests
  // record it: then the dumps are known not to compare by address.
  bool broken() const;
};

// `compacted`: the diff found few objects unchanged across a pair
// (LeakDiff::compacted); reported as such only when the dumps are otherwise
// one series. A pair whose dumps both have a capture manifest is judged by
// the manifests (pid and start time, GC count, compact_count) instead.
// Reads each dump's summary (core/heap/dump_summary.h): a streamed dump has one.
SeriesCheck check_series(const DumpSummary& a, const DumpSummary& b, const DumpSummary* c,
                         bool compacted);
// The same over a series D1..DN (explain's, core/series/series_growth.h): every
// consecutive pair, the dumps named D1, D2, ... in the findings.
SeriesCheck check_series_of(std::span<const DumpSummary* const> dumps, bool compacted);
// The same of loaded heaps (tests).
SeriesCheck check_series(const Heap& a, const Heap& b, const Heap* c, bool compacted);
SeriesCheck check_series_of(std::span<const Heap* const> heaps, bool compacted);

// Adds the findings to a diff's warnings; when a pair is from another
// process, the diff's "look compacted" warning (the same symptom: few objects
// in common) is dropped, since it names the wrong cause.
void add_series_warnings(const SeriesCheck& check, std::vector<std::string>& warnings);

}  // namespace heapleak
