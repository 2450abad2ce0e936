// `heapleak explain A B C`: one row per leak. The leaked objects of the diff
// clustered by the pre-existing object that accumulates them (the holder),
// each with how Ruby reaches it, its growth A -> B -> C, the leaked objects
// by class and site and the bytes retained, ranked by retained bytes; what is
// probably not a leak listed apart with why. The answer to start with.
#include <iostream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/dump_series.h"
#include "core/leak_clusters.h"
#include "results/grouping_warning.h"
#include "results/results_json.h"
#include "results/text/render.h"

namespace heapleak::cli {
using namespace results;
namespace {

constexpr const char* kHelp = R"(usage: heapleak explain A B [C] [options]

One row per leak: the objects new in B and still alive in C, clustered by
their holder (the object alive in A, B and C whose references gained them),
each with how Ruby reaches the holder (class, module, global, thread or GC
root), its growth A -> B -> C, the leaked objects by class (with allocation
sites when traced) and the bytes they retain, counted once across rows,
ranked by retained bytes. What is probably not a leak (finalizer tables, VM
internals, inline caches, containers that stopped growing, unreachable
objects) is listed apart, each with why.

options:
  --by class|site|generation  how each row's objects are grouped (default class)
  --limit N   show the N largest leaks and noise rows (default 10; 0: all)
  --json, --format json
              print {leaks: [{key, signature, holder, reach, growth, count, memsize,
              retained, objects, owners, root, path, pathNames, samples}], noise: [...], ...}
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
  if (args.positional.size() < 2 || args.positional.size() > 3)
    throw UsageError{"expects two or three dumps: A B [C]"};
  const bool as_json = json_wanted(args);  // checks --format before the loads
  const std::size_t limit =
      args.value("--limit") ? parse_count("--limit", *args.value("--limit")) : 10;
  const GroupBy group_by = group_by_option(args);
  int exit_code = kExitOk;
  const auto heaps = load_leak_dumps(args.positional, exit_code);
  if (heaps.empty()) return exit_code;
  const Heap& target = *heaps[1];
  const Heap* later = heaps.size() == 3 ? heaps[2].get() : nullptr;
  LeakDiff diff = diff_heaps(*heaps[0], target, later, {group_by, 0});
  add_series_warnings(check_series(*heaps[0], target, later, diff.compacted), diff.warnings);
  warn_if_untraced(diff, target, group_by);
  const LeakClusters clusters = cluster_leaks(*heaps[0], target, later, diff, group_by);
  auto json = leak_clusters_json(target, diff, clusters, limit == 0 ? SIZE_MAX : limit, 20);
  json["groupBy"] = group_by_name(group_by);
  if (as_json) {
    for (const auto& warning : diff.warnings) std::cerr << "heapleak: warning: " << warning << "\n";
    return write_output(args, to_json_text(json)) ? kExitOk : kExitInput;
  }
  name_dumps(json, args.positional);
  return write_doc(args, text::explain_text(json, {" (--limit 0 shows all)"})) ? kExitOk
                                                                               : kExitInput;
}

}  // namespace heapleak::cli
