// `heapleak owner HEAP ADDR...`: the object that owns a set of objects (their
// lowest common dominator), what it retains, and the merged shortest paths
// from the GC roots to the set, grouped by class (as dot with --dot).
#include <iostream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/diagnosis/ownership.h"
#include "core/reports/dot_graph.h"
#include "results/owner_json.h"
#include "results/text/render.h"

namespace heapleak::cli {
using namespace results;

namespace {

constexpr const char* kHelp = R"(usage: heapleak owner HEAP ADDR... [--dot] [--json] [-o FILE]

The owner of the objects: the nearest object every path from a GC root to
them passes through (freeing it frees them all), with the bytes it retains,
its own path from a root and the merged shortest paths to the objects.

options:
  --dot    print the merged paths as a Graphviz graph
  --json   print {owner: {address, type, class, retained}, owners, path, pathNames, paths, dot}
           (--format json too)
  -o FILE  write to FILE instead of stdout
)";

}  // namespace

int run_owner(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--json", "--dot", "--help", "-h"}, {"--format", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2) throw UsageError{"expects a dump and at least one address"};
  const bool as_json = json_wanted(args);  // checks --format before the load
  const auto addresses = parse_addresses({args.positional.begin() + 1, args.positional.end()});
  int exit_code = kExitOk;
  auto heap = load_alone(args.positional[0], LoadMode::kFull, exit_code);
  if (!heap) return exit_code;
  std::vector<ObjectIndex> objects;
  for (Address address : addresses) {
    auto index = heap->find(address);
    if (!index) {
      return report_error(make_error(ErrorReason::kUnknownAddress,
                                     format_address(address) + " is not in " + args.positional[0]));
    }
    objects.push_back(*index);
  }
  const OwnerReport report = find_owner(*heap, objects);
  const bool written = as_json ? write_output(args, to_json_text(owner_json(*heap, report)))
                       : args.has("--dot")
                           ? write_output(args, merged_paths_dot(report.merged_paths))
                           : write_doc(args, text::owner_text(owner_json(*heap, report)));
  if (!written) return kExitCannotWrite;
  return report.set.empty() ? kExitNoAnswer : kExitOk;
}

}  // namespace heapleak::cli
