// `heapleak top HEAP`: the objects (or classes) that keep the most memory
// alive, by retained size, and the heap's duplicate strings.
#include <cstdint>
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/text_format.h"
#include "core/dominators.h"
#include "core/ownership.h"
#include "results/results_json.h"

namespace heapleak::cli {
using namespace results;
namespace {

constexpr const char* kHelp =
    R"(usage: heapleak top HEAP [--by object|class] [--limit N] [--json] [-o FILE]

The objects that keep the most memory alive (retained size: their own memsize
plus everything only they hold), or the classes (--by class), and the
strings stored many times over.
)";

}  // namespace

int run_top(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--json", "--help", "-h"}, {"--by", "--limit", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() != 1) throw UsageError{"expects one dump"};
  const std::string by = args.value("--by").value_or("object");
  if (by != "object" && by != "class") throw UsageError{"--by expects object or class"};
  std::size_t limit = args.value("--limit") ? parse_count("--limit", *args.value("--limit")) : 20;
  if (limit == 0) limit = SIZE_MAX;  // 0 means all, as everywhere (it printed nothing)
  int exit_code = kExitOk;
  auto heap = load_or_report(args.positional[0], {}, exit_code);
  if (!heap) return exit_code;
  if (args.has("--json"))
    return write_output(args, to_json_text(top_retainers_json(*heap, limit, by == "class")))
               ? kExitOk
               : kExitInput;

  const DominatorTree& tree = heap->dominators();
  std::ostringstream out;
  out << "Retained by " << (by == "class" ? "class" : "object") << " (" << tree.reachable_count()
      << " objects reachable from GC roots, " << tree.unreachable_count() << " unreachable holding "
      << human_bytes(tree.unreachable_bytes()) << "):\n";
  if (by == "class") {
    for (const auto& entry : top_retainers_by_class(*heap, limit)) {
      out << "  " << human_bytes(entry.retained) << "  " << entry.key << " (" << entry.count
          << " objects)\n";
    }
  } else {
    for (const auto& entry : top_retainers(*heap, limit)) {
      out << "  " << human_bytes(entry.retained) << "  " << describe_object(*heap, entry.object)
          << "\n";
    }
  }
  const auto dups = duplicate_strings(*heap, 5);
  if (!dups.empty()) {
    out << "Duplicate strings (same content, many copies):\n";
    for (const auto& dup : dups) {
      const auto value = string_value_json(*heap, dup.samples.front());
      out << "  " << dup.count << " copies, " << human_bytes(dup.wasted) << " wasted: "
          << (value.is_string() ? boost::json::serialize(value)
                                : format_address(heap->address(dup.samples.front())))
          << "\n";
    }
  }
  return write_output(args, out.str()) ? kExitOk : kExitInput;
}

}  // namespace heapleak::cli
