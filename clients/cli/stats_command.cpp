// `heapleak stats A B [C]`: the leak diff, in the seed's format or as JSON.
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/diff_loads.h"
#include "core/diagnosis/leak_diff.h"
#include "core/heap/naming.h"
#include "engine/stats.h"
#include "results/text/render.h"

namespace heapleak::cli {
namespace {

constexpr const char* kHelp = R"(usage: heapleak stats A B [C] [options]

Objects in dump B that were not in dump A (the baseline) and are still alive
in dump C: the likely leak. With only A and B, everything new in B.

options:
  --by class|site|generation  group by type/class (default), allocation file:line,
                              or GC generation (the last two need allocation tracing)
  --samples N                 sample addresses per group (default 6, with --json every
                              address; 0: none)
  --limit N                   show only the N largest groups (0: all; default 20 in
                              the table, all with --format json or seed)
  --format table|json|seed    the table (default, as heapleak-client prints it), JSON
                              with every address of every group, or the seed's text
                              ("Potentially leaked objects:", raw byte counts) for
                              scripts that parse it
  --json                      the same as --format json
  -o FILE                     write to FILE instead of stdout
)";

constexpr std::size_t kSeedSamples = 6;   // the seed's text lists six addresses a group
constexpr std::size_t kTableSamples = 3;  // the table shows three (results/text)
constexpr std::size_t kTableGroups = 20;

std::string render_seed(const Heap& target, const LeakDiff& diff, std::size_t samples,
                        std::size_t limit) {
  std::ostringstream out;
  out << "Potentially leaked objects:\n";
  std::size_t shown = 0;
  for (const auto& group : diff.groups) {
    if (limit != 0 && shown++ >= limit) break;
    out << group.key << ": " << group.count << " (" << group.memsize << " bytes)\n ";
    for (std::size_t k = 0; k < group.samples.size() && k < samples; ++k) {
      out << " " << format_address(target.address(group.samples[k]));
    }
    if (group.count > samples) out << " ...";
    out << "\n";
  }
  if (!diff.grown.empty()) {
    // Leaks with no new object: what the groups above cannot show.
    out << "Grown in place (alive in A, B and C):\n";
    for (const auto& g : diff.grown) {
      out << "  " << format_address(target.address(g.object)) << " " << ruby_name(target, g.object)
          << ": " << g.field << " " << g.baseline << " -> " << g.target << " -> " << g.later
          << "\n";
    }
  }
  out << "Total: " << diff.total_count << " objects, " << diff.total_memsize << " bytes in "
      << diff.groups.size() << " groups (same object = " << diff.rule << ")\n";
  // stats only diffs (no references): it cannot say which container holds what.
  out << "Groups that are mostly VM internals come last; `heapleak explain` names the container "
         "that holds each leak.\n";
  return out.str();
}

}  // namespace

int run_stats(const std::vector<std::string>& argv) {
  const Args args = parse_args(
      argv, {{"--json", "--help", "-h"}, {"--by", "--samples", "--limit", "--format", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2 || args.positional.size() > 3) {
    throw UsageError{"expects two or three dumps: A B [C]"};
  }
  LeakDiffOptions options;
  options.group_by = group_by_option(args);
  const std::string format = args.has("--json") ? "json" : args.value("--format").value_or("table");
  if (format != "table" && format != "json" && format != "seed")
    throw UsageError{"--format expects table, json or seed"};
  const auto samples_flag = args.value("--samples");
  const std::size_t samples = samples_flag ? parse_count("--samples", *samples_flag)
                                           : (format == "seed" ? kSeedSamples : kTableSamples);
  // --json lists every address unless --samples says how many.
  if (format != "json" || samples_flag) options.samples_per_group = samples;
  // The table shows the 20 largest groups, as heapleak-client's; JSON and the
  // seed's text list them all.
  const std::size_t limit = args.value("--limit") ? parse_count("--limit", *args.value("--limit"))
                                                  : (format == "table" ? kTableGroups : 0);

  // A and C answer identity only; B keeps its references, as the daemon's
  // and explain's B do: a slot of A reused in B by a new object whose
  // contents only appeared is told new by who holds it in B
  // (undo_unheld_lenient_matches), and stats must give the same objects as
  // they do (identity-only B missed them: untraced recall 0.90-0.96 on Ruby
  // 3.3+).
  int exit_code = kExitOk;
  const LoadedDiff loaded = load_leak_diff(args.positional, exit_code, nullptr, /*analyses=*/false);
  if (!loaded.ok) return exit_code;
  engine::DiffSet dumps = loaded.set();
  engine::StatsAnswer answer = engine::stats(dumps, args.positional, options, limit,
                                             reread_with_references(args.positional));
  const LeakDiff& diff = answer.diff;
  if (format == "seed") {
    for (const auto& warning : diff.warnings) std::cerr << "heapleak: warning: " << warning << "\n";
    return write_output(args, render_seed(loaded.target(), diff, samples, limit))
               ? kExitOk
               : kExitCannotWrite;
  }
  boost::json::object& json = answer.doc;
  if (format == "json") {
    for (const auto& warning : diff.warnings) std::cerr << "heapleak: warning: " << warning << "\n";
    return write_output(args, to_json_text(json)) ? kExitOk : kExitCannotWrite;
  }
  return write_doc(args, text::stats_text(json, {" (--limit 0 shows all)"})) ? kExitOk
                                                                             : kExitCannotWrite;
}

}  // namespace heapleak::cli
