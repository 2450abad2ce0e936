// `heapleak root HEAP ADDR...`: the nearest common retainer of sample
// objects, drawn as dot (the seed's output) or answered as JSON.
#include <unistd.h>

#include <iostream>
#include <optional>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/common/graphviz_render.h"
#include "core/reports/retainer_report.h"
#include "results/retainer_json.h"
#include "results/text/render.h"
#include "results/text/terminal_safe.h"

namespace heapleak::cli {
using namespace results;
namespace {

constexpr const char* kHelp = R"(usage: heapleak root HEAP ADDR... [options]

Walks the references backwards from the sample objects to the nearest object
that holds them all, and prints the paths as a Graphviz graph: samples in
blue, the retainer in red, its path from a GC root dashed. The answer in
words goes to stderr (to stdout when the graph goes to a file).

options:
  --min-samples K         accept a retainer that holds at least K of the samples
  --max-visits N          give up after following N references (default 20,000,000)
  --format dot|svg|png    the graph as dot text (default) or rendered by Graphviz's
                          `dot` (exit 11 when it is not installed)
  --json, --format json   print {retainer, distance, dot, nodes, edges, ...}
  -o FILE                 write to FILE instead of stdout
)";

}  // namespace

int run_root(const std::vector<std::string>& argv) {
  const Args args = parse_args(
      argv, {{"--json", "--help", "-h"}, {"--min-samples", "--max-visits", "--format", "-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2) throw UsageError{"expects a dump and at least one address"};
  RetainerRequest request;
  request.addresses = parse_addresses({args.positional.begin() + 1, args.positional.end()});
  if (auto k = args.value("--min-samples")) request.min_samples = parse_count("--min-samples", *k);
  if (auto v = args.value("--max-visits")) request.max_visits = parse_count("--max-visits", *v);
  // --format as heapleak-client's root takes it, checked before the load.
  const std::string format = args.has("--json") ? "json" : args.value("--format").value_or("dot");
  if (format != "dot" && format != "svg" && format != "png" && format != "json")
    throw UsageError{"--format expects dot, svg, png or json, got '" + format + "'"};
  std::optional<std::string> dot_binary;
  if (format == "svg" || format == "png") {
    dot_binary = graphviz::find_dot();
    if (!dot_binary) {
      std::cerr << "heapleak root: " << graphviz::graphviz_install_hint() << "\n";
      return kExitNoGraphviz;
    }
    if (format == "png" && !args.value("-o") && ::isatty(1))
      throw UsageError{"--format png writes binary data; give -o FILE or redirect stdout"};
  }

  int exit_code = kExitOk;
  auto heap = load_alone(args.positional[0], LoadMode::kFull, exit_code);
  if (!heap) return exit_code;
  auto report = explain_retention(*heap, request);
  if (!report) return report_error(report.error());
  const boost::json::object json = retainer_json(*heap, *report);
  // The graph goes to stdout; the answer in words (the retainer, or why there
  // is none; which container holds which samples) to stderr, or to stdout
  // when the graph goes to a file.
  std::string summary = text::plain(text::retainer_text(json));
  const auto file = args.value("-o");
  if (!file) std::cerr << summary;
  if (dot_binary) {
    if (std::string error =
            graphviz::render_graph(*dot_binary, report->dot, format, file.value_or(""));
        !error.empty()) {
      std::cerr << "heapleak root: " << error << "\n";
      return kExitCannotWrite;
    }
  } else if (!write_output(args, format == "json" ? to_json_text(json)
                                 // On stdout the graph may meet a terminal: C1 controls
                                 // and bidi overrides from class names are escaped there
                                 // (core/dot_graph escapes what DOT needs, C0 included).
                                 : file ? report->dot
                                        : text::shown_lines(report->dot))) {
    return kExitCannotWrite;
  }
  if (file) {  // as heapleak-client says it, once the graph is there
    summary.pop_back();
    std::cout << summary << "; graph written to " << *file << "\n";
  }
  if (report->result.retainer == kNoObject) return kExitNoAnswer;
  return report->unknown.empty() ? kExitOk : kExitUnknownAddress;
}

}  // namespace heapleak::cli
