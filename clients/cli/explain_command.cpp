// `heapleak explain A B C`: one row per leak. The leaked objects of the diff
// clustered by the pre-existing object that accumulates them (the holder),
// each with how Ruby reaches it, its growth A -> B -> C (or over every dump of
// a series D1..DN, core/series/series_growth.h), the leaked objects
// by class and site and the bytes retained, ranked by retained bytes; what is
// probably not a leak listed apart with why. The answer to start with.
#include <iostream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/diff_loads.h"
#include "core/series/dump_facts.h"
#include "engine/explain.h"
#include "results/leak_rows_jsonl.h"
#include "results/text/render.h"

namespace heapleak::cli {
using namespace results;
namespace {

constexpr const char* kHelp = R"(usage: heapleak explain A B [C] [options]
       heapleak explain D1 D2 D3 D4 ... DN [options]

One row per leak: the objects new in B and still alive in C, clustered by
their holder (the object alive in A, B and C whose references gained them),
each with how Ruby reaches the holder (class, module, global, thread or GC
root), its growth A -> B -> C, the leaked objects by class (with allocation
sites when traced) and the bytes they retain, counted once across rows,
ranked by retained bytes. What is probably not a leak (finalizer tables, VM
internals, inline caches, containers that stopped growing, unreachable
objects) is listed apart, each with why.

A series of four dumps or more, oldest first, is read as A = D1, B = D(N-1)
and C = DN (what is new since the first dump and still alive in the last),
and each row's holder is read in every dump: "length grew in 4 of 4
intervals: 120 -> 240 -> 360 -> 480 -> 600". The rows that grew in every
interval come first. The dumps other than D(N-1) load identity-only.

options:
  --by class|site|generation  how each row's objects are grouped (default class)
  --limit N   show the N largest leaks and noise rows (default 10, jsonl: all; 0: all)
  --json, --format json
              print {leaks: [{key, signature, holder, reach, growth, count, memsize,
              retained, objects, owners, root, path, pathNames, samples}], noise: [...], ...};
              a series adds growthCounts, growthBytes and grewIntervals to each row
  --format jsonl
              one leak row per line (no noise), flat, for DuckDB/Spark/jq: signature,
              key, holder_class, reach, path, growth (count per dump), growth_per_hour,
              objects, retained, sites, and the process (pid, host) and dump times
              from the capture manifests, else the files' mtimes (docs/fleet.md)
  -o FILE     write to FILE instead of stdout
)";

}  // namespace

int run_explain(const std::vector<std::string>& argv) {
  const Args args =
      parse_args(argv, {{"--json", "--help", "-h"}, {"--by", "--limit", "--format", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2)
    throw UsageError{"expects two dumps or more: A B [C], or a series D1 D2 ... DN"};
  const auto format = args.value("--format");
  if (format && *format != "text" && *format != "json" && *format != "jsonl")
    throw UsageError{"--format expects text, json or jsonl, got '" + *format + "'"};
  const bool as_jsonl = format == std::optional<std::string>("jsonl");
  const bool as_json = !as_jsonl && json_wanted(args);  // checks --format before the loads
  engine::ExplainQuery query;
  query.group_by = group_by_option(args);
  if (args.value("--limit")) query.limit = parse_count("--limit", *args.value("--limit"));
  if (as_jsonl && !args.value("--limit")) query.limit = 0;  // a table holds every row
  int exit_code = kExitOk;
  const LoadedDiff loaded = load_leak_diff(args.positional, exit_code);
  if (!loaded.ok) return exit_code;
  engine::DiffSet dumps = loaded.set();
  const engine::ExplainAnswer answer =
      engine::explain(dumps, args.positional, query, reread_with_references(args.positional));
  const auto& json = answer.doc;
  // The answer's warnings: the diff's and the capture manifests'.
  const auto print_warnings = [](const boost::json::object& doc) {
    if (const auto* warnings = doc.if_contains("warnings"); warnings && warnings->is_array())
      for (const auto& warning : warnings->as_array())
        if (warning.is_string())
          std::cerr << "heapleak: warning: " << std::string_view(warning.as_string()) << "\n";
  };
  if (as_jsonl) {
    print_warnings(json);
    std::vector<DumpFacts> facts;
    for (const auto& path : args.positional) facts.push_back(dump_facts(path));
    return write_output(args, leak_rows_jsonl(json, facts)) ? kExitOk : kExitCannotWrite;
  }
  if (as_json) {
    print_warnings(json);
    return write_output(args, to_json_text(json)) ? kExitOk : kExitCannotWrite;
  }
  return write_doc(args, text::explain_text(json, {" (--limit 0 shows all)"})) ? kExitOk
                                                                               : kExitCannotWrite;
}

}  // namespace heapleak::cli
