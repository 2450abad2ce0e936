// `heapleak root HEAP ADDR...`: the nearest common retainer of sample
// objects, drawn as dot (the seed's output) or answered as JSON.
#include <iostream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/text_format.h"
#include "core/naming.h"
#include "core/retainer_report.h"
#include "results/results_json.h"

namespace heapleak::cli {
using namespace results;
namespace {

constexpr const char* kHelp = R"(usage: heapleak root HEAP ADDR... [options]

Walks the references backwards from the sample objects to the nearest object
that holds them all, and prints the paths as a Graphviz dot graph: samples in
blue, the retainer in red, its path from a GC root dashed.
Render it with: dot -Tsvg -o leak.svg leak.dot

options:
  --min-samples K   accept a retainer that holds at least K of the samples
  --max-visits N    give up after following N references (default 20,000,000)
  --json            print {retainer, distance, dot, nodes, edges, ...}
  -o FILE           write to FILE instead of stdout
)";

}  // namespace

int run_root(const std::vector<std::string>& argv) {
  const Args args =
      parse_args(argv, {{"--json", "--help", "-h"}, {"--min-samples", "--max-visits", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2) throw UsageError{"expects a dump and at least one address"};
  RetainerRequest request;
  request.addresses = parse_addresses({args.positional.begin() + 1, args.positional.end()});
  if (auto k = args.value("--min-samples")) request.min_samples = parse_count("--min-samples", *k);
  if (auto v = args.value("--max-visits")) request.max_visits = parse_count("--max-visits", *v);

  int exit_code = kExitOk;
  auto heap = load_or_report(args.positional[0], {}, exit_code);
  if (!heap) return exit_code;
  auto report = explain_retention(*heap, request);
  if (!report) return report_error(report.error());
  for (Address address : report->unknown) {
    std::cerr << "heapleak: " << format_address(address) << " is not in " << args.positional[0]
              << "; left out\n";
  }
  if (report->result.retainer == kNoObject) {
    std::cerr << "heapleak: no common retainer: "
              << (report->result.budget_exhausted
                      ? "the search gave up after visiting " +
                            std::to_string(report->result.visited) + " references"
                      : "no object holds all the samples")
              << " (try --min-samples)\n";
  }
  // The graph goes to stdout; which container holds which samples goes to stderr.
  if (report->split.split) {
    std::cerr << "heapleak: the samples are held by " << report->split.groups.size()
              << " different containers; the common retainer is only where their paths meet:\n";
    for (const auto& group : report->split.groups) {
      std::cerr << "  "
                << (group.container == kNoObject ? std::string("(no container)")
                                                 : describe_object(*heap, group.container))
                << " holds";
      for (ObjectIndex sample : group.samples)
        std::cerr << " " << format_address(heap->address(sample));
      std::cerr << "\n";
    }
  } else if (report->result.retainer != kNoObject &&
             is_vm_internal(*heap, report->result.retainer)) {
    std::cerr << "heapleak: the common retainer " << ruby_name(*heap, report->result.retainer)
              << " is a VM internal, not an object of the program\n";
  }
  const std::string text =
      args.has("--json") ? to_json_text(retainer_json(*heap, *report)) : report->dot;
  if (!write_output(args, text)) return kExitInput;
  if (report->result.retainer == kNoObject) return kExitNoAnswer;
  return report->unknown.empty() ? kExitOk : kExitUnknownAddress;
}

}  // namespace heapleak::cli
