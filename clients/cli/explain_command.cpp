// `heapleak explain A B C`: the leak groups of the diff, each with who owns
// it, how many bytes it keeps alive and how that owner is reached from a GC
// root, ranked by retained bytes. The answer to start with.
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/text_format.h"
#include "core/ownership.h"
#include "results/grouping_warning.h"
#include "results/results_json.h"

namespace heapleak::cli {
using namespace results;
namespace {

constexpr const char* kHelp = R"(usage: heapleak explain A B [C] [options]

The leak diff (objects new in B and still alive in C), each group with its
owner (the object whose release would free the group: their lowest common
dominator), the bytes it retains and its path from a GC root, ranked by
retained bytes.

options:
  --by class|site|generation  group by type/class (default), allocation file:line,
                              or GC generation (the last two need allocation tracing)
  --limit N   explain the N largest groups (default 10; 0: all)
  --json      print {leaks: [{key, count, memsize, retained, owners, path}], ...}
  -o FILE     write to FILE instead of stdout
)";

}  // namespace

int run_explain(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--json", "--help", "-h"}, {"--by", "--limit", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2 || args.positional.size() > 3)
    throw UsageError{"expects two or three dumps: A B [C]"};
  const std::size_t limit =
      args.value("--limit") ? parse_count("--limit", *args.value("--limit")) : 10;
  const GroupBy group_by = group_by_option(args);
  // Only B needs references; A and C answer identity questions.
  std::vector<LoadOptions> options(args.positional.size());
  for (std::size_t k = 0; k < options.size(); ++k) options[k].build_edges = k == 1;
  int exit_code = kExitOk;
  const auto heaps = load_all_or_report(args.positional, options, exit_code);
  if (heaps.empty()) return exit_code;
  const Heap& target = *heaps[1];
  LeakDiff diff =
      diff_heaps(*heaps[0], target, heaps.size() == 3 ? heaps[2].get() : nullptr, {group_by, 0});
  warn_if_untraced(diff, target, group_by);
  for (const auto& warning : diff.warnings) std::cerr << "heapleak: warning: " << warning << "\n";
  const auto leaks = explain_leak(target, diff, limit == 0 ? SIZE_MAX : limit, group_by);
  if (args.has("--json")) {
    auto json = explanation_json(target, diff, leaks, 20);
    json["groupBy"] = group_by_name(group_by);
    return write_output(args, to_json_text(json)) ? kExitOk : kExitInput;
  }

  std::ostringstream out;
  out << "Leaks by bytes retained (" << diff.total_count << " objects new in B and alive in C):\n";
  int rank = 0;
  for (const auto& leak : leaks) {
    out << ++rank << ". " << leak.group.key << ": " << leak.group.count << " objects, "
        << human_bytes(leak.group.memsize) << ", retaining " << human_bytes(leak.retained) << "\n";
    if (leak.owners.empty()) out << "   owner: none (not reachable from a GC root)\n";
    for (std::size_t k = 0; k < leak.owners.size() && k < 3; ++k) {
      const Owner& owner = leak.owners[k];
      if (owner.object == kNoObject) continue;
      out << "   owner: " << describe_object(target, owner.object) << " retains "
          << human_bytes(owner.retained) << " (" << owner.objects << " of the group)\n";
    }
    if (!leak.path.path.empty()) out << "   path:  " << describe_path(target, leak.path) << "\n";
  }
  return write_output(args, out.str()) ? kExitOk : kExitInput;
}

}  // namespace heapleak::cli
