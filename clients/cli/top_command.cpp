// `heapleak top HEAP`: the objects (or classes) that keep the most memory
// alive, by retained size, and the heap's duplicate strings.
#include <cstdint>
#include <iostream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/diagnosis/ownership.h"
#include "results/duplicate_strings_json.h"
#include "results/text/render.h"
#include "results/top_json.h"

namespace heapleak::cli {
using namespace results;
namespace {

constexpr const char* kHelp =
    R"(usage: heapleak top HEAP [--by object|class] [--limit N] [--json] [-o FILE]

The objects that keep the most memory alive (retained size: their own memsize
plus everything only they hold), or the classes (--by class), and the
strings stored many times over.

options:
  --by object|class      rank objects (default) or classes
  --limit N              the N largest (default 20; 0: all)
  --json, --format json  print {reachable, unreachable, retainers|classes, duplicateStrings}
  -o FILE                write to FILE instead of stdout
)";

constexpr std::size_t kDuplicateStrings = 5;  // top's second table, as heapleak-client's

}  // namespace

int run_top(const std::vector<std::string>& argv) {
  const Args args =
      parse_args(argv, {{"--json", "--help", "-h"}, {"--by", "--limit", "--format", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() != 1) throw UsageError{"expects one dump"};
  const bool as_json = json_wanted(args);  // checks --format before the load
  const std::string by = args.value("--by").value_or("object");
  if (by != "object" && by != "class")
    throw InvalidArgument("--by expects object or class, got '" + by + "'");
  std::size_t limit = args.value("--limit") ? parse_count("--limit", *args.value("--limit")) : 20;
  if (limit == 0) limit = SIZE_MAX;  // 0 means all, as everywhere (it printed nothing)
  int exit_code = kExitOk;
  auto heap = load_alone(args.positional[0], LoadMode::kFull, exit_code);
  if (!heap) return exit_code;
  boost::json::object json = top_retainers_json(*heap, limit, by == "class");
  // The strings stored many times over, in --json too (as heapleak-client's top).
  json["duplicateStrings"] =
      duplicate_strings_json(*heap, duplicate_strings(*heap, kDuplicateStrings))["strings"];
  if (as_json) return write_output(args, to_json_text(json)) ? kExitOk : kExitCannotWrite;
  json["heapFile"] = args.positional[0];
  return write_doc(args, text::top_text(json)) ? kExitOk : kExitCannotWrite;
}

}  // namespace heapleak::cli
