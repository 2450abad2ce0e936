// `heapleak report A B C -o report.html`: explain's answer as one
// self-contained HTML page (engine/report.h): the header, a card per leak
// row in explain's words with its growth chart and retainer graph, the
// treemap of retained bytes, the rows probably not leaks folded away. For CI
// artifacts, tickets and people without the editor; it opens from disk and
// fetches nothing.
#include <iostream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/diff_loads.h"
#include "engine/report.h"
#include "results/text/human_bytes.h"

namespace heapleak::cli {
namespace {

constexpr const char* kHelp = R"(usage: heapleak report A B [C] [options]
       heapleak report D1 D2 D3 D4 ... DN [options]

The rows of `heapleak explain` as one self-contained HTML page: the dumps
and what is new, one card per leak (holder, reach, path, growth as a chart
across the dumps, classes and sites, retained bytes, in explain's words),
the retainer graph of each (what `heapleak root` draws, from 5 of the row's
samples), a treemap of retained bytes by leak and class, the rows that are
probably not leaks folded away with why, and the warnings. The page embeds
the document `heapleak explain --json` prints and a small pinned script; it
opens from disk, loads nothing from the network, and shows every string
from the dump as text.

options:
  --by class|site|generation  how each row's objects are grouped (default class)
  --limit N   the N largest leaks and noise rows (default 10; 0: all)
  -o FILE     write the page to FILE (else stdout)
)";

}  // namespace

int run_report(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--help", "-h"}, {"--by", "--limit", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2)
    throw UsageError{"expects two dumps or more: A B [C], or a series D1 D2 ... DN"};
  engine::ReportQuery query;
  query.explain.group_by = group_by_option(args);
  if (args.value("--limit")) query.explain.limit = parse_count("--limit", *args.value("--limit"));
  query.version = kHeapleakVersion;
  int exit_code = kExitOk;
  const LoadedDiff loaded = load_leak_diff(args.positional, exit_code);
  if (!loaded.ok) return exit_code;
  engine::DiffSet dumps = loaded.set();
  const engine::ReportAnswer answer =
      engine::report(dumps, args.positional, query, reread_with_references(args.positional));
  for (const auto& warning : answer.explain.outcome.diff.warnings)
    std::cerr << "heapleak: warning: " << warning << "\n";
  if (!write_output(args, answer.html)) return kExitCannotWrite;
  if (auto file = args.value("-o"))
    std::cerr << "heapleak: wrote " << *file << " (" << text::human_bytes(answer.html.size())
              << ")\n";
  return kExitOk;
}

}  // namespace heapleak::cli
