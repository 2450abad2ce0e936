// stats, root, path: the leak diff, the common retainer (as a graph) and the
// path from a GC root, with heaps named by id, name or dump path.
#include <boost/json.hpp>
#include <iostream>

#include "clients/client/commands.h"
#include "clients/client/exit_codes.h"
#include "clients/client/graphviz.h"
#include "clients/client/heap_resolver.h"
#include "clients/client/output.h"
#include "results/text/render.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

constexpr std::size_t kDefaultTableGroups = 20;
// The wire has no "all" for samples (0 means none): ask for more than any
// group can hold.
constexpr std::uint64_t kEveryAddress = UINT32_MAX;

}  // namespace

int run_stats(CommandContext& ctx) {
  const Args& args = ctx.args();
  json::object params = leak_diff_params(ctx, kDefaultTableGroups);
  if (args.value("--samples")) {
    params["samples"] = args.number("--samples", 50);
  } else if (ctx.json()) {
    params["samples"] = kEveryAddress;  // --json lists every address, as the README says
  }
  const json::value result = call_with_progress(ctx, "stats", std::move(params));
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  print_doc(ctx.term(), text::stats_text(result, {" (--limit 0 shows all)"}));
  return kExitOk;
}

int run_root(CommandContext& ctx) {
  const Args& args = ctx.args();
  const GraphOutput graph = graph_output(args, ctx.json());
  const std::string& output = graph.file;
  json::array addresses;
  for (std::size_t k = 1; k < args.positionals.size(); ++k)
    addresses.emplace_back(args.positionals[k]);
  json::object params{{"heap", resolve_heap(ctx, args.positionals[0])},
                      {"addresses", std::move(addresses)}};
  if (args.value("--min-samples")) params["minSamples"] = args.number("--min-samples", 0);
  // --max-nodes: the budget's old name, still accepted.
  for (const char* flag : {"--max-nodes", "--max-visits"}) {
    if (args.value(flag)) params["maxVisits"] = args.number(flag, 0);
  }
  const json::value result = ctx.rpc().call_or_throw("root", std::move(params));
  if (ctx.json()) {
    if (output.empty()) {
      print_json(std::cout, result);
    } else {
      write_file(output, json::serialize(result) + "\n");
    }
    return kExitOk;
  }
  const bool found = member(result, "retainerObject") != nullptr;
  // The answer in words (results/text), as `heapleak root` says it.
  std::string summary = text::plain(text::retainer_text(result));
  if (!summary.empty() && summary.back() == '\n') summary.pop_back();
  write_graph(graph, str(result, "dot"));
  // stdout carries the graph unless it went to a file; the summary goes where it does no harm.
  (output.empty() ? std::cerr : std::cout)
      << summary << (output.empty() ? "" : "; graph written to " + output) << "\n";
  return found ? kExitOk : kExitNoAnswer;
}

int run_path(CommandContext& ctx) {
  const Args& args = ctx.args();
  const json::value result = ctx.rpc().call_or_throw(
      "pathToRoot", json::object{{"heap", resolve_heap(ctx, args.positionals[0])},
                                 {"address", args.positionals[1]}});
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  print_doc(ctx.term(), text::path_text(result));
  return kExitOk;
}

}  // namespace heapleak::client
