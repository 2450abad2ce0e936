// `heapleak owner HEAP ADDR...`: the object that owns a set of objects (their
// lowest common dominator), what it retains, and the merged shortest paths
// from the GC roots to the set, grouped by class (as dot with --dot).
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/text_format.h"
#include "core/dot_graph.h"
#include "core/ownership.h"
#include "results/results_json.h"

namespace heapleak::cli {
using namespace results;

namespace {

constexpr const char* kHelp = R"(usage: heapleak owner HEAP ADDR... [--dot] [--json] [-o FILE]

The owner of the objects: the nearest object every path from a GC root to
them passes through (freeing it frees them all), with the bytes it retains,
its own path from a root and the merged shortest paths to the objects.

options:
  --dot    print the merged paths as a Graphviz graph
  --json   print {owner: {address, type, class, retained}, owners, path, paths, dot}
  -o FILE  write to FILE instead of stdout
)";

void print_tree(std::ostringstream& out, const PathTreeNode& node, int depth) {
  for (const auto& child : node.children) {
    out << std::string(2 * depth + 2, ' ') << child.key << " (" << child.count << ")\n";
    print_tree(out, child, depth + 1);
  }
}

}  // namespace

int run_owner(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--json", "--dot", "--help", "-h"}, {"-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2) throw UsageError{"expects a dump and at least one address"};
  const auto addresses = parse_addresses({args.positional.begin() + 1, args.positional.end()});
  int exit_code = kExitOk;
  auto heap = load_or_report(args.positional[0], {}, exit_code);
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
  std::string text;
  if (args.has("--json")) {
    text = to_json_text(owner_json(*heap, report));
  } else if (args.has("--dot")) {
    text = merged_paths_dot(report.merged_paths);
  } else {
    std::ostringstream out;
    if (report.set.empty()) {
      out << "None of the objects is reachable from a GC root.\n";
    } else if (report.owner.object != kNoObject) {
      out << "Owner: " << describe_object(*heap, report.owner.object) << " retains "
          << human_bytes(report.owner.retained) << "\n";
    } else {
      out << "No single object owns all " << report.set.size()
          << " objects; owners of its parts:\n";
      for (const auto& owner : report.owners) {
        out << "  " << describe_object(*heap, owner.object) << " retains "
            << human_bytes(owner.retained) << " (" << owner.objects << " objects)\n";
      }
    }
    if (!report.owner_path.path.empty())
      out << "Path:  " << describe_path(*heap, report.owner_path) << "\n";
    out << "Merged shortest paths from the GC roots:\n";
    print_tree(out, report.merged_paths, 0);
    text = out.str();
  }
  if (!write_output(args, text)) return kExitInput;
  return report.set.empty() ? kExitNoAnswer : kExitOk;
}

}  // namespace heapleak::cli
