// `heapleak path HEAP ADDR`: the shortest path from a GC root to an object.
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/naming.h"
#include "core/object_key.h"
#include "core/root_paths.h"
#include "results/results_json.h"

namespace heapleak::cli {
using namespace results;

namespace {

constexpr const char* kHelp = R"(usage: heapleak path HEAP ADDR [--json] [-o FILE]

The shortest chain of references from a GC root (vm, global_tbl,
machine_context, ...) to the object at ADDR.
)";

}  // namespace

int run_path(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--json", "--help", "-h"}, {"-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() != 2) throw UsageError{"expects a dump and one address"};
  const Address address = parse_addresses({args.positional[1]}).front();
  int exit_code = kExitOk;
  auto heap = load_or_report(args.positional[0], {}, exit_code);
  if (!heap) return exit_code;
  auto index = heap->find(address);
  if (!index) {
    return report_error(make_error(ErrorReason::kUnknownAddress,
                                   format_address(address) + " is not in " + args.positional[0]));
  }
  auto path = path_to_root(*heap, *index);
  if (!path) return report_error(path.error());
  std::string text;
  if (args.has("--json")) {
    text = to_json_text(root_path_json(*heap, *path));
  } else {
    std::ostringstream out;
    out << "ROOT " << path->root;
    // VM internals between the root and the first Ruby-visible object (3.4+).
    for (std::size_t k = 0; k < path->root_via.size(); ++k)
      out << (k ? ", " : " (through ") << ruby_name(*heap, path->root_via[k]);
    out << (path->root_via.empty() ? "\n" : ")\n");
    const std::vector<EdgeName> vias = path_vias(*heap, path->path);
    for (std::size_t k = 0; k < path->path.size(); ++k) {
      const ObjectIndex i = path->path[k];
      out << "  -> " << format_address(heap->address(i)) << " " << object_key(*heap, i);
      if (auto site = allocation_site(*heap, i); !site.empty()) out << " (" << site << ")";
      // The ivar of the object above that holds this one (Ruby 3.2+ dumps).
      if (std::string via = edge_suffix(vias[k]); !via.empty())
        out << "  held in " << via.substr(1);
      out << "\n";
    }
    text = out.str();
  }
  return write_output(args, text) ? kExitOk : kExitInput;
}

}  // namespace heapleak::cli
