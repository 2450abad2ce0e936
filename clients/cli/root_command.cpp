// `heapleak root HEAP ADDR...`: the nearest common retainer of sample
// objects, drawn as dot (the seed's output) or answered as JSON.
#include <iostream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/retainer_report.h"
#include "results/results_json.h"
#include "results/text/render.h"

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
  const boost::json::object json = retainer_json(*heap, *report);
  // The graph goes to stdout; the answer in words (the retainer, or why there
  // is none; which container holds which samples) to stderr, or to stdout
  // when the graph goes to a file.
  const std::string summary = text::plain(text::retainer_text(json));
  (args.value("-o") ? std::cout : std::cerr) << summary;
  const std::string text = json_wanted(args) ? to_json_text(json) : report->dot;
  if (!write_output(args, text)) return kExitInput;
  if (report->result.retainer == kNoObject) return kExitNoAnswer;
  return report->unknown.empty() ? kExitOk : kExitUnknownAddress;
}

}  // namespace heapleak::cli
