#include "core/series/dump_series.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>

#include "core/reading/dump_manifest.h"

namespace heapleak {

namespace {

constexpr std::size_t kMinPages = 4;         // too small a heap to tell
constexpr double kOtherProcessBelow = 0.10;  // share of pages in common
// Unsynchronised clocks and copies made in a burst: file times count only
// when they are this far out of order.
constexpr std::int64_t kMtimeSlackNs = 2'000'000'000;

// Share of the smaller page set found in the other; -1 when too small to tell.
double shared_pages(const std::vector<std::uint64_t>& x, const std::vector<std::uint64_t>& y) {
  if (x.size() < kMinPages || y.size() < kMinPages) return -1;
  std::size_t common = 0;
  for (std::size_t i = 0, j = 0; i < x.size() && j < y.size();) {
    if (x[i] < y[j]) {
      ++i;
    } else if (y[j] < x[i]) {
      ++j;
    } else {
      ++common, ++i, ++j;
    }
  }
  return static_cast<double>(common) / static_cast<double>(std::min(x.size(), y.size()));
}

std::string file_name(const DumpSummary& dump) {
  return std::filesystem::path(dump.report.path).filename().string();
}

struct Dump {
  const DumpSummary* heap;
  std::string letter;
  const std::vector<std::uint64_t>& pages;
  std::uint32_t generation;
  std::optional<DumpManifest> manifest;
};

// Both dumps have a manifest: what they record decides.
void check_pair_by_manifests(const Dump& x, const Dump& y, SeriesCheck& out) {
  const DumpManifest& mx = *x.manifest;
  const DumpManifest& my = *y.manifest;
  const std::string names =
      x.letter + " (" + file_name(*x.heap) + ") and " + y.letter + " (" + file_name(*y.heap) + ")";
  auto process = [](const DumpManifest& m) {
    return "pid " + std::to_string(m.pid) + (m.hostname.empty() ? "" : " on " + m.hostname) +
           " started " + m.started_at;
  };
  if (process_key(mx) != process_key(my)) {
    out.findings.push_back({SeriesProblem::kOtherProcess, x.letter, y.letter,
                            names + " are not from one process: their manifests say " +
                                process(mx) + " and " + process(my) +
                                ": take all the dumps of one process",
                            true});
    return;
  }
  if (my.gc_count < mx.gc_count) {
    out.findings.push_back({SeriesProblem::kOutOfOrder, x.letter, y.letter,
                            names + " are out of order: their manifests say GC count " +
                                std::to_string(mx.gc_count) + " then " +
                                std::to_string(my.gc_count) + ": give the dumps oldest first",
                            true});
  } else if (my.compact_count != mx.compact_count) {
    out.findings.push_back(
        {SeriesProblem::kCompacted, x.letter, y.letter,
         "the heap was compacted between " + names + " (GC compact_count " +
             std::to_string(mx.compact_count) + " -> " + std::to_string(my.compact_count) +
             " in their manifests: GC.compact, auto_compact or Process.warmup): objects "
             "moved, so they cannot be compared by address; take the series again",
         true});
  }
}

// Manifests that agree, checked against the heaps: dumps of two processes
// share almost no heap page, whatever their manifests claim.
void check_pages_agree(const Dump& x, const Dump& y, SeriesCheck& out) {
  const double shared = shared_pages(x.pages, y.pages);
  if (shared < 0 || shared >= kOtherProcessBelow) return;
  const std::string names =
      x.letter + " (" + file_name(*x.heap) + ") and " + y.letter + " (" + file_name(*y.heap) + ")";
  out.findings.push_back(
      {SeriesProblem::kOtherProcess, x.letter, y.letter,
       names + " are not from one process: their manifests name one process, but they share " +
           std::to_string(static_cast<int>(shared * 100)) +
           "% of their heap pages (one process keeps most of its pages): a manifest was copied "
           "or forged; take all the dumps in one run",
       true});
}

void check_pair(const Dump& x, const Dump& y, SeriesCheck& out) {
  const std::string names =
      x.letter + " (" + file_name(*x.heap) + ") and " + y.letter + " (" + file_name(*y.heap) + ")";
  const double shared = shared_pages(x.pages, y.pages);
  if (shared >= 0 && shared < kOtherProcessBelow) {
    out.findings.push_back(
        {SeriesProblem::kOtherProcess, x.letter, y.letter,
         names + " are not from one process: they share " +
             std::to_string(static_cast<int>(shared * 100)) +
             "% of their heap pages (one process keeps most of its pages, even across "
             "GC.compact): take all the dumps in one run"});
    return;  // neither compaction nor order means anything across processes
  }
  if (x.generation != 0 && y.generation != 0 && y.generation < x.generation) {
    out.findings.push_back(
        {SeriesProblem::kOutOfOrder, x.letter, y.letter,
         names + " are out of order: " + y.letter + "'s newest object was allocated at GC " +
             std::to_string(y.generation - 1) + ", before " + x.letter + "'s (GC " +
             std::to_string(x.generation - 1) + "): give the dumps oldest first"});
  } else if (x.generation == 0 || y.generation == 0) {
    const std::int64_t tx = x.heap->report.identity.mtime_ns;
    const std::int64_t ty = y.heap->report.identity.mtime_ns;
    if (tx != 0 && ty != 0 && ty + kMtimeSlackNs < tx) {
      out.findings.push_back({SeriesProblem::kOutOfOrder, x.letter, y.letter,
                              names + " are out of order: " + y.letter + " was written before " +
                                  x.letter + " (file times): give the dumps oldest first"});
    }
  }
}

}  // namespace

const char* series_problem_name(SeriesProblem problem) {
  switch (problem) {
    case SeriesProblem::kOtherProcess:
      return "otherProcess";
    case SeriesProblem::kCompacted:
      return "compacted";
    case SeriesProblem::kOutOfOrder:
      return "outOfOrder";
  }
  return "";
}

bool SeriesCheck::broken() const {
  return std::any_of(findings.begin(), findings.end(), [](const SeriesFinding& finding) {
    return finding.problem != SeriesProblem::kCompacted || finding.from_manifest;
  });
}

namespace {

// Every consecutive pair of `heaps`, named `letters` in the messages.
SeriesCheck check_named(std::span<const DumpSummary* const> heaps,
                        const std::vector<std::string>& letters, bool compacted) {
  std::vector<Dump> dumps;
  for (std::size_t k = 0; k < heaps.size(); ++k) {
    dumps.push_back(Dump{heaps[k], letters[k], heaps[k]->pages, heaps[k]->newest_generation,
                         read_manifest_for(heaps[k]->report.path)});
  }
  SeriesCheck out;
  // The diff's compaction flag covers the whole series: said once, for the
  // pair it is about only when the other pair is clean.
  bool all_by_manifest = true;
  for (std::size_t k = 0; k + 1 < dumps.size(); ++k) {
    if (dumps[k].manifest && dumps[k + 1].manifest) {
      const std::size_t before = out.findings.size();
      check_pair_by_manifests(dumps[k], dumps[k + 1], out);
      // Manifests are files anyone who can write the folder can forge or
      // copy: when they say "one process", the heap pages must agree too.
      if (out.findings.size() == before) check_pages_agree(dumps[k], dumps[k + 1], out);
    } else {
      all_by_manifest = false;
      check_pair(dumps[k], dumps[k + 1], out);
    }
  }
  // The manifests' compact_count is the truth where every pair has them.
  if (compacted && !out.broken() && !all_by_manifest) {
    out.findings.push_back({SeriesProblem::kCompacted, letters.front(), letters.back(),
                            "the dumps are one process, compacted between them (GC.compact or "
                            "auto_compact moved objects)"});
  }
  return out;
}

}  // namespace

SeriesCheck check_series(const DumpSummary& a, const DumpSummary& b, const DumpSummary* c,
                         bool compacted) {
  if (!c) return check_named(std::vector<const DumpSummary*>{&a, &b}, {"A", "B"}, compacted);
  return check_named(std::vector<const DumpSummary*>{&a, &b, c}, {"A", "B", "C"}, compacted);
}

SeriesCheck check_series_of(std::span<const DumpSummary* const> dumps, bool compacted) {
  std::vector<std::string> letters;
  for (std::size_t k = 0; k < dumps.size(); ++k) letters.push_back("D" + std::to_string(k + 1));
  return check_named(dumps, letters, compacted);
}

SeriesCheck check_series(const Heap& a, const Heap& b, const Heap* c, bool compacted) {
  const DumpSummary sa = summary_of(a), sb = summary_of(b);
  const std::optional<DumpSummary> sc =
      c ? std::optional<DumpSummary>(summary_of(*c)) : std::nullopt;
  return check_series(sa, sb, sc ? &*sc : nullptr, compacted);
}

SeriesCheck check_series_of(std::span<const Heap* const> heaps, bool compacted) {
  std::vector<DumpSummary> summaries;
  for (const Heap* heap : heaps) summaries.push_back(summary_of(*heap));
  std::vector<const DumpSummary*> dumps;
  for (const DumpSummary& summary : summaries) dumps.push_back(&summary);
  return check_series_of(dumps, compacted);
}

void add_series_warnings(const SeriesCheck& check, std::vector<std::string>& warnings) {
  const bool other_process =
      std::any_of(check.findings.begin(), check.findings.end(),
                  [](const SeriesFinding& f) { return f.problem == SeriesProblem::kOtherProcess; });
  if (other_process) {
    std::erase_if(warnings, [](const std::string& warning) {
      return warning.find("look compacted") != std::string::npos ||
             warning.find("after compaction") != std::string::npos;
    });
  }
  for (const SeriesFinding& finding : check.findings) {
    // The diff says a compaction it inferred already; one the manifests
    // record is said here.
    if (finding.problem == SeriesProblem::kCompacted && !finding.from_manifest) continue;
    warnings.push_back(finding.message);
  }
}

}  // namespace heapleak
