// `heapleak stats A B [C]`: the leak diff, in the seed's format or as JSON.
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/leak_diff.h"
#include "core/naming.h"
#include "results/grouping_warning.h"
#include "results/stats_json.h"

namespace heapleak::cli {
using namespace results;
namespace {

constexpr const char* kHelp = R"(usage: heapleak stats A B [C] [options]

Objects in dump B that were not in dump A (the baseline) and are still alive
in dump C: the likely leak. With only A and B, everything new in B.

options:
  --by class|site|generation  group by type/class (default), allocation file:line,
                              or GC generation (the last two need allocation tracing)
  --samples N                 sample addresses per group (default 6, with --json every
                              address; 0: none)
  --limit N                   show only the N largest groups (default and 0: all)
  --json                      print JSON with every address of every group
  -o FILE                     write to FILE instead of stdout
)";

constexpr std::size_t kTextSamples = 6;

std::string render_text(const Heap& target, const LeakDiff& diff, std::size_t samples,
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
  const Args args =
      parse_args(argv, {{"--json", "--help", "-h"}, {"--by", "--samples", "--limit", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2 || args.positional.size() > 3) {
    throw UsageError{"expects two or three dumps: A B [C]"};
  }
  LeakDiffOptions options;
  options.group_by = group_by_option(args);
  const auto samples_flag = args.value("--samples");
  const std::size_t samples = samples_flag ? parse_count("--samples", *samples_flag) : kTextSamples;
  // --json lists every address unless --samples says how many.
  if (args.has("--json") && samples_flag) options.samples_per_group = samples;
  const std::size_t limit =
      args.value("--limit") ? parse_count("--limit", *args.value("--limit")) : 0;

  // The diff needs no references: load identity columns only, two dumps at a
  // time. stats' peak is its loads: three at once raised it from 886 to
  // 902-969 MB on syn1700 (up to 53 bytes per object) for 0.5 s less.
  LoadOptions identity_only;
  identity_only.mode = LoadMode::kIdentityOnly;
  int exit_code = kExitOk;
  const auto heaps = load_all_or_report(
      args.positional, std::vector(args.positional.size(), identity_only), exit_code, 2);
  if (heaps.empty()) return exit_code;

  const Heap* later = heaps.size() == 3 ? heaps[2].get() : nullptr;
  LeakDiff diff = diff_heaps(*heaps[0], *heaps[1], later, options);
  warn_if_untraced(diff, *heaps[1], options.group_by);
  for (const auto& warning : diff.warnings) std::cerr << "heapleak: warning: " << warning << "\n";

  std::string text;
  if (args.has("--json")) {
    text = to_json_text(stats_json(*heaps[1], diff, options.group_by, limit));
  } else {
    text = render_text(*heaps[1], diff, samples, limit);
  }
  return write_output(args, text) ? kExitOk : kExitInput;
}

}  // namespace heapleak::cli
