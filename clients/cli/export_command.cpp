// `heapleak export HEAP OUTDIR`: the heap as tables for DuckDB and Spark
// (docs/tables.md). The layout is core/reports/heap_tables.h's; this only wires it.
#include <iostream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/reports/heap_tables.h"

namespace heapleak::cli {
namespace {

constexpr const char* kHelp =
    R"(usage: heapleak export HEAP OUTDIR [--format jsonl|csv] [--ivar-names]

Writes the heap as five tables in OUTDIR (created when missing), one file
each, named after Perfetto's heap graph tables: heap_object, heap_reference,
heap_class, heap_root and heap_dominator. docs/tables.md gives every column
and the DuckDB queries for the largest retainers and an object's root path.

options:
  --format jsonl|csv   JSON lines (default) or CSV with a header row
  --ivar-names         name the instance variable of each reference from the
                       dump's shapes (Ruby 3.2+); re-reads every holder's
                       record, several times slower
)";

}  // namespace

int run_export(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--ivar-names", "--help", "-h"}, {"--format"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() != 2) throw UsageError{"expects a dump and an output directory"};
  ExportOptions options;
  if (auto format = args.value("--format")) {
    auto parsed = parse_table_format(*format);
    if (!parsed) throw UsageError{"--format expects jsonl or csv"};
    options.format = *parsed;
  }
  options.ivar_names = args.has("--ivar-names");
  int exit_code = kExitOk;
  auto heap = load_alone(args.positional[0], LoadMode::kFull, exit_code);
  if (!heap) return exit_code;
  auto tables = export_heap_tables(*heap, args.positional[1], options);
  if (!tables) {
    std::cerr << "heapleak: " << tables.error().message << "\n";
    return kExitCannotWrite;  // as -o FILE unwritable
  }
  for (const auto& table : *tables) std::cerr << table.path << ": " << table.rows << " rows\n";
  return kExitOk;
}

}  // namespace heapleak::cli
