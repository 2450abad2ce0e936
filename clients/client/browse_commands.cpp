// inspect, referrers, references: one object and its edges, a page at a time.
#include <boost/json.hpp>
#include <iostream>

#include "clients/client/commands.h"
#include "clients/client/exit_codes.h"
#include "clients/client/heap_resolver.h"
#include "clients/client/output.h"
#include "results/text/render.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

int run_page(CommandContext& ctx, const char* method) {
  const Args& args = ctx.args();
  json::object params{{"heap", resolve_heap(ctx, args.positionals[0])},
                      {"address", args.positionals[1]}};
  if (args.value("--offset")) params["offset"] = args.number("--offset", 0);
  if (args.value("--limit")) params["limit"] = args.number("--limit", 100);
  const json::value result = ctx.rpc().call_or_throw(method, std::move(params));
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  print_doc(ctx.term(), text::edge_page_text(result, method, "--offset "));
  return kExitOk;
}

}  // namespace

int run_inspect(CommandContext& ctx) {
  const Args& args = ctx.args();
  const json::value result = ctx.rpc().call_or_throw(
      "object", json::object{{"heap", resolve_heap(ctx, args.positionals[0])},
                             {"address", args.positionals[1]}});
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  print_doc(ctx.term(), text::object_text(result));
  return kExitOk;
}

int run_referrers(CommandContext& ctx) { return run_page(ctx, "referrers"); }

int run_references(CommandContext& ctx) { return run_page(ctx, "references"); }

}  // namespace heapleak::client
