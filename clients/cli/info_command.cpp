// `heapleak info HEAP`: what a dump holds and what the loader could not read.
#include <cstdio>
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/loading/load_warnings.h"
#include "results/heap_summary_json.h"
#include "results/text/human_bytes.h"
#include "results/text/terminal_safe.h"

namespace heapleak::cli {
using namespace results;
namespace {

constexpr const char* kHelp = R"(usage: heapleak info HEAP [--json] [-o FILE]

Loads a dump and reports objects, GC roots, references to objects absent
from the dump, broken lines (with their line numbers), memory and time.
)";

}  // namespace

int run_info(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--json", "--help", "-h"}, {"--format", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() != 1) throw UsageError{"expects one dump"};
  const bool as_json = json_wanted(args);  // checks --format before the load
  int exit_code = kExitOk;
  auto heap = load_alone(args.positional[0], LoadMode::kFull, exit_code);
  if (!heap) return exit_code;
  const auto summary = heap_summary_json(*heap);
  // A dump cut short still loads: say so loudly, on stderr, in both formats.
  for (const auto& warning : load_warnings(heap->report()))
    std::cerr << "heapleak: warning: " << warning << "\n";
  std::string text;
  if (as_json) {
    text = to_json_text(summary);
  } else {
    const LoadReport& r = heap->report();
    std::ostringstream out;
    // Counts and sizes by the one rule of every surface (results/text).
    using text::grouped;
    char per_object[32];
    std::snprintf(per_object, sizeof per_object, "%.1f",
                  summary.at("bytesPerObject").to_number<double>());
    out << r.path << (r.gzip ? " (gzip)" : "") << "\n"
        << "  objects:            " << grouped(heap->size()) << "\n"
        << "  references:         " << grouped(r.references) << " ("
        << grouped(r.missing_references) << " to objects absent from the dump)\n"
        << "  root records:       " << grouped(r.root_records) << " in " << heap->roots().size()
        << " categories\n"
        << "  shapes:             " << grouped(r.shapes) << "\n"
        << "  allocation tracing: " << (r.traced ? "yes" : "no") << "\n"
        << "  broken lines:       " << grouped(r.broken_lines) << "\n"
        << "  duplicate addresses: " << grouped(r.duplicate_addresses) << "\n"
        << "  resident:           " << text::human_bytes(static_cast<double>(heap->bytes_used()))
        << " (" << per_object << " bytes per object)\n"
        << "  load time:          " << r.seconds << " s\n";
    text = text::shown_lines(out.str());  // the dump's path as any dump string
  }
  return write_output(args, text) ? kExitOk : kExitCannotWrite;
}

}  // namespace heapleak::cli
