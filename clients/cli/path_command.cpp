// `heapleak path HEAP ADDR`: the shortest path from a GC root to an object.
#include <iostream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/graph/root_paths.h"
#include "results/path_json.h"
#include "results/text/render.h"

namespace heapleak::cli {
using namespace results;

namespace {

constexpr const char* kHelp = R"(usage: heapleak path HEAP ADDR [--json|--format json] [-o FILE]

The shortest chain of references from a GC root (vm, global_tbl,
machine_context, ...) to the object at ADDR.
)";

}  // namespace

int run_path(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--json", "--help", "-h"}, {"--format", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() != 2) throw UsageError{"expects a dump and one address"};
  const bool as_json = json_wanted(args);  // checks --format before the load
  const Address address = parse_addresses({args.positional[1]}).front();
  int exit_code = kExitOk;
  auto heap = load_alone(args.positional[0], LoadMode::kFull, exit_code);
  if (!heap) return exit_code;
  auto index = heap->find(address);
  if (!index) {
    return report_error(make_error(ErrorReason::kUnknownAddress,
                                   format_address(address) + " is not in " + args.positional[0]));
  }
  auto path = path_to_root(*heap, *index);
  if (!path) return report_error(path.error());
  const boost::json::object json = root_path_json(*heap, *path);
  if (as_json) return write_output(args, to_json_text(json)) ? kExitOk : kExitCannotWrite;
  return write_doc(args, text::path_text(json)) ? kExitOk : kExitCannotWrite;
}

}  // namespace heapleak::cli
