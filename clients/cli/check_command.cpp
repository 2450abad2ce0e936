// `heapleak check A B C`: the leak gate for CI. Runs explain's analysis (one
// row per leak), judges the rows against a baseline of accepted signatures
// and the budgets (results/leak_gate.h), prints the verdict as text, JSON,
// SARIF 2.1.0 or JUnit XML, and exits 0 within budget, kExitGateFailed when
// not, so a CI step fails on a new leak but not on a known one.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/diff_loads.h"
#include "clients/cli/size_arg.h"
#include "core/base/safe_write.h"
#include "engine/check.h"
#include "engine/report.h"
#include "results/gate_error.h"
#include "results/gate_json.h"
#include "results/junit.h"
#include "results/leak_baseline.h"
#include "results/leak_gate.h"
#include "results/memory_gate.h"
#include "results/sarif.h"
#include "results/text/human_bytes.h"
#include "results/text/memory_text.h"
#include "results/text/terminal_safe.h"

namespace heapleak::cli {
using namespace results;
using text::human_bytes;
namespace {

constexpr const char* kHelp = R"(usage: heapleak check A B [C] [options]

The leak gate for CI: the leak rows of `heapleak explain A B C`, judged
against a baseline of accepted leaks and budgets. Exits 0 within budget and
5 when not (a new leak, a budget passed, or with --fail-on-growth a known leak
that grew); 6 when no verdict can be given: the dumps cannot be judged (a
dump missing, unreadable, corrupt or cut short; dumps not from one process,
or out of order), the verdict is then "error" in every format, or the
report or the baseline could not be written (a full disk); 2 usage; the
--baseline: 3 not found, 14 not readable, 7 malformed. Rows that are
probably not leaks never count; they are listed as such.

options:
  --max-leaked-bytes SIZE    new leaks may retain this much (500000, 512KiB, 5MiB, 1.5GB)
  --max-leaked-objects N     new leaks may hold this many objects
                             (no budget given: any new leak fails)
  --baseline FILE            accepted leaks (by signature): they never fail the build;
                             entries no longer seen are reported as fixed
  --write-baseline FILE      accept every current leak: write them to FILE (sorted JSON)
                             and judge this run against it
  --fail-on-growth FACTOR    fail when a known leak retains more than FACTOR times its
                             baseline bytes (without it, growth past 2x is only reported)
  --max-rss-growth SIZE      the process's RSS may grow this much from the first dump to
                             the last (capture manifests of version 2 needed: without
                             them the budget fails, it cannot be judged)
  --max-unexplained SIZE     the part of that growth nothing accounts for (not Ruby
                             objects, free heap slots, malloc or file-backed pages) may be
                             this much (docs/memory.md)
  --format text|json|sarif|junit   the report (default text; its first line is the verdict)
  --json                           the same as --format json
  --source-root DIR          SARIF: sites under DIR are written relative to it (%SRCROOT%;
                             a relative DIR is taken from the current directory)
  --output FILE, -o FILE     write the report to FILE instead of stdout
  --report FILE              also write the page `heapleak report` writes (one HTML file:
                             the leak rows, their graphs, a treemap) for the CI's artifacts;
                             not written when the verdict is "error"

Exit codes, shared with every heapleak and heapleak-client command: docs/exit-codes.md
)";

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return text::grouped(n) + " " + (n == 1 ? one : many);
}

std::string first_site(const LeakCluster& row) {
  std::set<std::string> sites;
  std::string first;
  for (const ClusterClass& entry : row.classes) {
    for (const SiteCount& site : entry.sites) {
      if (first.empty()) first = site.site;
      sites.insert(site.site);
    }
  }
  if (first.empty()) return "";
  return "at " + first +
         (sites.size() > 1 ? " and " + plural(sites.size() - 1, "more site", "more sites") : "");
}

std::string row_line(const LeakCluster& row) {
  return row.key + " [" + row.signature + "]: " + plural(row.count, "object", "objects") +
         ", retaining " + human_bytes(row.retained);
}

std::string text_report(const LeakClusters& clusters, const GateVerdict& verdict,
                        const GateBudget& budget, const std::string& baseline_path,
                        std::size_t baseline_size) {
  std::ostringstream out;
  out << "heapleak check: " << (verdict.passed ? "PASS" : "FAIL") << ": ";
  if (verdict.passed) {
    out << plural(verdict.new_rows, "new leak", "new leaks") << ", "
        << plural(verdict.known_rows, "known", "known") << ", "
        << plural(verdict.fixed.size(), "fixed", "fixed") << "\n";
  } else {
    for (std::size_t k = 0; k < verdict.reasons.size(); ++k)
      out << (k ? "; " : "") << verdict.reasons[k];
    out << "\n";
  }
  out << "budget: ";
  if (!budget.any_budget()) out << "none (any new leak fails)";
  if (budget.max_leaked_bytes) out << human_bytes(*budget.max_leaked_bytes) << " retained";
  if (budget.max_leaked_bytes && budget.max_leaked_objects) out << ", ";
  if (budget.max_leaked_objects) out << plural(*budget.max_leaked_objects, "object", "objects");
  if (budget.max_rss_growth) out << ", RSS growth " << human_bytes(*budget.max_rss_growth);
  if (budget.max_unexplained) out << ", unexplained " << human_bytes(*budget.max_unexplained);
  out << "; baseline: "
      << (baseline_path.empty()
              ? "none"
              : baseline_path + " (" + plural(baseline_size, "accepted leak", "accepted leaks") +
                    ")")
      << "\n";
  const auto section = [&](const char* title, bool known) {
    bool any = false;
    for (const GateRow& row : verdict.rows) {
      if (row.is_new() == known) continue;
      if (!any) out << "\n" << title << ":\n";
      any = true;
      out << (row.failed ? "  x " : "  - ") << row_line(*row.row);
      if (row.growth) {
        char factor[32];
        std::snprintf(factor, sizeof factor, "%.1f", *row.growth);
        out << " (baseline " << human_bytes(row.baseline->retained) << ": x" << factor
            << (row.grew ? ", grew" : "") << ")";
      }
      out << "\n";
      const std::string site = first_site(*row.row);
      if (!site.empty()) out << "      " << site << "\n";
    }
  };
  if (verdict.memory) {
    const GateMemory& m = *verdict.memory;
    out << "memory: RSS " << (m.rss_growth ? text::signed_bytes(*m.rss_growth) : "not recorded");
    if (m.unexplained) out << ", unexplained " << text::signed_bytes(*m.unexplained);
    if (m.over_rss) out << " (over --max-rss-growth)";
    if (m.over_unexplained) out << " (over --max-unexplained)";
    out << "; " << m.verdict_line << "\n";
  }
  section("New leaks", false);
  section("Known leaks (in the baseline)", true);
  if (!verdict.fixed.empty()) out << "\nFixed (in the baseline, no longer seen):\n";
  for (const BaselineEntry& entry : verdict.fixed) {
    out << "  - " << entry.key << " [" << entry.signature << "]: was "
        << plural(entry.count, "object", "objects") << ", " << human_bytes(entry.retained)
        << " retained\n";
  }
  if (!clusters.noise.empty()) {
    std::map<std::string, std::size_t> reasons;
    for (const LeakCluster& row : clusters.noise)
      ++reasons[std::string(noise_reason_name(row.noise))];
    out << "\nProbably not leaks (never counted): " << plural(clusters.noise.size(), "row", "rows")
        << ":";
    const char* separator = " ";
    for (const auto& [reason, count] : reasons) {
      out << separator << reason << " " << count;
      separator = ", ";
    }
    out << "\n";
  }
  return out.str();
}

GateBudget budget_options(const Args& args) {
  GateBudget budget;
  if (auto bytes = args.value("--max-leaked-bytes"))
    budget.max_leaked_bytes = parse_byte_size("--max-leaked-bytes", *bytes);
  if (auto objects = args.value("--max-leaked-objects"))
    budget.max_leaked_objects = parse_count("--max-leaked-objects", *objects);
  if (auto factor = args.value("--fail-on-growth")) {
    double value = 0;
    std::istringstream in(*factor);
    if (!(in >> value) || !in.eof() || !(value >= 1.0) || value > 1e9)
      throw UsageError{"--fail-on-growth expects a factor of 1 or more (e.g. 2 or 1.5), got '" +
                       *factor + "'"};
    budget.growth_factor = value;
    budget.fail_on_growth = true;
  }
  if (auto bytes = args.value("--max-rss-growth"))
    budget.max_rss_growth = parse_byte_size("--max-rss-growth", *bytes);
  if (auto bytes = args.value("--max-unexplained"))
    budget.max_unexplained = parse_byte_size("--max-unexplained", *bytes);
  return budget;
}

// Writes `text` by core/base/safe_write.h: a write that fails (a full disk)
// leaves the old baseline whole; a device (/dev/full) is written through,
// never replaced; a symbolic link or a folder other users may write is refused.
bool write_text_file(const std::string& path, const std::string& text) {
  if (auto error = write_file_safely(path, text, SpecialTarget::kWriteThrough)) {
    std::cerr << "heapleak: " << error->message << " (left as it was)\n";
    return false;
  }
  return true;
}

// Whether two paths name the same file (existing or not yet).
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec) && !ec;
}

}  // namespace

int run_check(const std::vector<std::string>& argv) {
  const Args parsed = parse_args(
      argv, {{"--json", "--help", "-h"},
             {"--max-leaked-bytes", "--max-leaked-objects", "--baseline", "--write-baseline",
              "--fail-on-growth", "--max-rss-growth", "--max-unexplained", "--format",
              "--source-root", "--output", "-o", "--report"}});
  if (parsed.has("--help") || parsed.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (parsed.positional.size() < 2 || parsed.positional.size() > 3)
    throw UsageError{"expects two or three dumps: A B [C]"};
  // --json is --format json, as in every command that prints JSON.
  const std::string format =
      parsed.has("--json") ? "json" : parsed.value("--format").value_or("text");
  if (format != "text" && format != "json" && format != "sarif" && format != "junit")
    throw UsageError{"--format expects text, json, sarif or junit, got '" + format + "'"};
  if (parsed.value("--output") && parsed.value("-o"))
    throw UsageError{"--output and -o are the same flag: give one"};
  Args args = parsed;  // write_output writes to -o: --output is its long name
  if (auto file = parsed.value("--output")) args.values["-o"] = *file;
  // The report written over the baseline would lose it.
  if (auto output = args.value("-o")) {
    for (const char* flag : {"--baseline", "--write-baseline", "--report"}) {
      if (auto file = args.value(flag); file && same_file(*output, *file))
        throw UsageError{std::string("--output and ") + flag + " name the same file: " + *file};
    }
  }
  if (auto page = args.value("--report")) {
    for (const char* flag : {"--baseline", "--write-baseline"}) {
      if (auto file = args.value(flag); file && same_file(*page, *file))
        throw UsageError{std::string("--report and ") + flag + " name the same file: " + *file};
    }
  }
  const GateBudget budget = budget_options(args);
  // Sites in a dump are absolute paths: compare them with an absolute root.
  std::string source_root = args.value("--source-root").value_or("");
  if (!source_root.empty())
    source_root = std::filesystem::absolute(source_root).lexically_normal().string();

  // The baseline first: a typo in its name must not cost the load of three dumps.
  const std::string baseline_path = args.value("--baseline").value_or("");
  LeakBaseline baseline;
  if (!baseline_path.empty()) {
    auto read = read_leak_baseline(baseline_path);
    if (!read) return report_error(read.error());
    baseline = std::move(*read);
  }

  int exit_code = kExitOk;
  std::vector<std::string> load_errors;
  const LoadedDiff loaded = load_leak_diff(args.positional, exit_code, &load_errors);
  // A gate never passes on evidence it could not read, nor on dumps that are
  // not one series: the verdict is "error" (exit 6) in the asked format.
  std::vector<GateProblem> problems;
  for (const std::string& message : load_errors) problems.push_back({"unreadable", "", message});
  if (problems.empty() && exit_code != kExitOk) return exit_code;  // not a load: as before
  engine::CheckEvidence evidence;
  if (problems.empty()) {
    engine::DiffSet dumps = loaded.set();
    evidence = engine::check_evidence(dumps, reread_with_references(args.positional));
  }
  problems.insert(problems.end(), evidence.problems.begin(), evidence.problems.end());
  if (!problems.empty()) {
    const std::string report = gate_error_report(format, problems, kHeapleakVersion);
    if (!write_output(args, report)) return kExitGateError;
    if (args.value("-o") || format != "text") std::cerr << gate_error_line(problems) << "\n";
    return kExitGateError;
  }
  const Heap& target = loaded.target();
  const LeakDiff& diff = evidence.rows->diff;
  for (const auto& warning : diff.warnings) std::cerr << "heapleak: warning: " << warning << "\n";
  for (const auto& warning : evidence.warnings)
    std::cerr << "heapleak: warning: " << warning << "\n";
  if (format == "sarif" && !target.report().traced) {
    // Code scanning can only place a result on a line it has a site for.
    std::cerr << "heapleak: warning: " << target.report().path
              << " has no allocation sites: the SARIF results have no file and line; call "
                 "ObjectSpace.trace_object_allocations_start before dump A\n";
  }
  const LeakClusters& clusters = evidence.rows->rows;

  LeakBaseline written;  // --write-baseline's; declared before the verdict that points into it
  GateVerdict verdict;   // points into the baseline it was judged against
  std::string judged_against = baseline_path;
  std::size_t baseline_size = baseline.leaks.size();
  if (auto file = args.value("--write-baseline")) {
    // Accepting the current leaks: this run is judged against what it writes,
    // and the old baseline's entries no longer seen are still reported fixed.
    written = baseline_of(clusters.leaks);
    if (!write_text_file(*file, leak_baseline_text(written))) return kExitGateError;
    std::cerr << "heapleak: wrote "
              << plural(written.leaks.size(), "accepted leak", "accepted leaks") << " to " << *file
              << "\n";
    verdict = judge_leaks(clusters, &written, budget);
    for (const BaselineEntry& entry : baseline.leaks)
      if (!written.find(entry.signature)) verdict.fixed.push_back(entry);
    judged_against = *file;
    baseline_size = written.leaks.size();
  } else {
    verdict = judge_leaks(clusters, baseline_path.empty() ? nullptr : &baseline, budget);
  }

  judge_memory(evidence.memory->accounting, budget, verdict);

  std::string report;
  if (format == "json") {
    report = to_json_text(gate_json(target, diff, clusters, verdict, budget, judged_against));
  } else if (format == "sarif") {
    report = to_json_text(sarif_log(clusters, verdict, {source_root, kHeapleakVersion}));
  } else if (format == "junit") {
    report = junit_xml(clusters, verdict);
  } else {
    // Class names and files come from the dump: one escaping rule for screens.
    report =
        text::shown_lines(text_report(clusters, verdict, budget, judged_against, baseline_size));
  }
  if (!write_output(args, report)) return kExitGateError;
  if (auto page = args.value("--report")) {
    // The page of `heapleak report` on the same heaps: explain's rows again
    // (the heaps keep their analyses, so only the row passes run twice).
    engine::ReportQuery query;
    query.version = kHeapleakVersion;
    engine::DiffSet dumps = loaded.set();
    if (!write_text_file(*page, engine::report(dumps, args.positional, query,
                                               reread_with_references(args.positional))
                                    .html))
      return kExitGateError;
  }
  // Whatever the format, the verdict's first line goes to stderr when the
  // report went to a file, so a CI log says why the step failed.
  if (args.value("-o") || format != "text") {
    std::cerr << "heapleak check: " << (verdict.passed ? "PASS" : "FAIL");
    for (std::size_t k = 0; k < verdict.reasons.size(); ++k)
      std::cerr << (k ? "; " : ": ") << verdict.reasons[k];
    std::cerr << "\n";
  }
  return verdict.passed ? kExitOk : kExitGateFailed;
}

}  // namespace heapleak::cli
