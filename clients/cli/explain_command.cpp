// `heapleak explain A B C`: one row per leak. The leaked objects of the diff
// clustered by the pre-existing object that accumulates them (the holder),
// each with how Ruby reaches it, its growth A -> B -> C, the leaked objects
// by class and site and the bytes retained, ranked by retained bytes; what is
// probably not a leak listed apart with why. The answer to start with.
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/text_format.h"
#include "core/leak_clusters.h"
#include "results/grouping_warning.h"
#include "results/results_json.h"

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
  --json      print {leaks: [{key, signature, holder, reach, growth, count, memsize,
              retained, objects, owners, root, path, pathNames, samples}], noise: [...], ...}
  -o FILE     write to FILE instead of stdout
)";

// "1 object", "2700 objects".
std::string objects_text(std::uint64_t count) {
  return std::to_string(count) + (count == 1 ? " object" : " objects");
}

std::string count_text(const std::optional<std::uint64_t>& value) {
  return value ? std::to_string(*value) : "?";
}

void print_row(std::ostream& out, const Heap& target, const LeakCluster& row) {
  out << row.key << ": " << objects_text(row.count) << ", " << human_bytes(row.memsize)
      << ", retaining " << human_bytes(row.retained) << "\n";
  if (row.holder != kNoObject) {
    out << "   holder: " << describe_object(target, row.holder);
    if (row.growth.target) {
      // A String's growth is in bytes: read as such.
      const auto text = [&](const std::optional<std::uint64_t>& value) {
        return row.growth.field == "bytesize" && value ? human_bytes(*value) : count_text(value);
      };
      out << " (" << row.growth.field << " " << text(row.growth.baseline) << " -> "
          << text(row.growth.target) << " -> " << text(row.growth.later) << ")";
    }
    out << "\n";
    if (row.instances > 1)
      out << "   and " << row.instances - 1
          << " more holders alike (same class and path), counted in this row\n";
    out << "   reach:  " << row.reach.kind << " " << row.reach.name << " (ROOT " << row.reach.root
        << ")\n";
  }
  if (row.grown_in_place && row.count == 0)
    out << "   grew in place: alive in A, B and C, no new objects; the holder is the leak\n";
  if (!row.path_names.empty()) {
    out << "   path:  ";
    for (std::size_t k = 0; k < row.path_names.size(); ++k)
      out << (k ? " -> " : " ") << row.path_names[k];
    out << "\n";
  }
  for (std::size_t k = 0; k < row.classes.size() && k < 5; ++k) {
    const ClusterClass& entry = row.classes[k];
    out << "   " << entry.count << " x " << entry.name << " (" << human_bytes(entry.memsize) << ")";
    if (!entry.sites.empty()) {
      out << " at " << entry.sites.front().site;
      if (entry.sites.size() > 1) out << " and " << entry.sites.size() - 1 << " more sites";
    }
    out << "\n";
  }
  if (row.classes.size() > 5) out << "   ... " << row.classes.size() - 5 << " more classes\n";
}

}  // namespace

int run_explain(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--json", "--help", "-h"}, {"--by", "--limit", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2 || args.positional.size() > 3)
    throw UsageError{"expects two or three dumps: A B [C]"};
  const std::size_t limit =
      args.value("--limit") ? parse_count("--limit", *args.value("--limit")) : 10;
  const GroupBy group_by = group_by_option(args);
  int exit_code = kExitOk;
  const auto heaps = load_leak_dumps(args.positional, exit_code);
  if (heaps.empty()) return exit_code;
  const Heap& target = *heaps[1];
  const Heap* later = heaps.size() == 3 ? heaps[2].get() : nullptr;
  LeakDiff diff = diff_heaps(*heaps[0], target, later, {group_by, 0});
  warn_if_untraced(diff, target, group_by);
  for (const auto& warning : diff.warnings) std::cerr << "heapleak: warning: " << warning << "\n";
  const LeakClusters clusters = cluster_leaks(*heaps[0], target, later, diff, group_by);
  if (args.has("--json")) {
    auto json = leak_clusters_json(target, diff, clusters, limit == 0 ? SIZE_MAX : limit, 20);
    json["groupBy"] = group_by_name(group_by);
    return write_output(args, to_json_text(json)) ? kExitOk : kExitInput;
  }

  std::ostringstream out;
  out << "Leaks by bytes retained (" << diff.total_count << " objects new in B"
      << (later ? " and alive in C" : "") << ", " << clusters.leaks.size()
      << (clusters.leaks.size() == 1 ? " leak, " : " leaks, ") << clusters.noise.size()
      << " probably not):\n";
  if (clusters.leaks.empty()) out << "   none\n";
  for (std::size_t k = 0; k < clusters.leaks.size() && k < limit; ++k) {
    out << k + 1 << ". ";
    print_row(out, target, clusters.leaks[k]);
  }
  if (clusters.leaks.size() > limit) out << "... " << clusters.leaks.size() - limit << " more\n";
  if (!clusters.noise.empty()) out << "\nProbably not leaks:\n";
  for (std::size_t k = 0; k < clusters.noise.size() && k < limit; ++k) {
    const LeakCluster& row = clusters.noise[k];
    out << "-  " << row.key << ": " << objects_text(row.count) << ", " << human_bytes(row.memsize)
        << ", retaining " << human_bytes(row.retained) << "\n   " << noise_reason_name(row.noise)
        << ": " << noise_reason_why(row.noise) << "\n";
  }
  if (clusters.noise.size() > limit)
    out << "... " << clusters.noise.size() - limit << " more (--limit)\n";
  return write_output(args, out.str()) ? kExitOk : kExitInput;
}

}  // namespace heapleak::cli
