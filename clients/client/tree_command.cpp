// `heapleak-client tree HEAP [ADDR]`: the top of the dominator tree as an
// indented listing (the daemon's dominatorTree), biggest retained first,
// each node with what it keeps alive, "N more" for the children not listed.
#include <boost/json.hpp>
#include <iostream>
#include <string>

#include "clients/client/commands.h"
#include "clients/client/exit_codes.h"
#include "clients/client/heap_resolver.h"
#include "clients/client/output.h"
#include "results/text/human_bytes.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

std::string retained_of(const json::value& node, std::string_view key = "retained") {
  return human_bytes(static_cast<double>(num(node, key)));
}

void print_node(const Terminal& term, const json::value& node, int level) {
  const std::string indent(static_cast<std::size_t>(level) * 2, ' ');
  std::string line = indent + retained_of(node) + "  ";
  const std::string address = str(node, "address");
  // The Ruby name (Leaky, not CLASS:Leaky), as every other command shows it.
  std::string name = text::field(node, "name");
  if (name.empty()) name = text::ruby_key(str(node, "key"));
  line += address == "ROOT" ? term.paint(name, "1")
                            : term.paint(text::field(node, "address"), "36") + " " + name;
  if (auto where = location(node); !where.empty()) line += " (" + where + ")";
  std::cout << line << "\n";
  const json::value* children = member(node, "children");
  if (children && children->is_array()) {
    for (const auto& child : children->as_array()) print_node(term, child, level + 1);
  }
  if (const json::value* other = member(node, "other")) {
    std::cout << indent << "  "
              << term.paint(
                     "... " + grouped(num(*other, "count")) + " more, " + retained_of(*other), "2")
              << "\n";
  }
}

}  // namespace

int run_tree(CommandContext& ctx) {
  const Args& args = ctx.args();
  json::object params{{"heap", resolve_heap(ctx, args.positionals[0])}};
  if (args.positionals.size() > 1) params["root"] = args.positionals[1];
  params["depth"] = args.number("--depth", 2);
  if (args.value("--limit"))
    params["limit"] = args.number("--limit", 10);
  else
    params["limit"] = 10;
  if (args.value("--min-bytes")) params["minBytes"] = args.number("--min-bytes", 0);
  const json::value result = ctx.rpc().call_or_throw("dominatorTree", std::move(params));
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  const json::value* root = member(result, "root");
  if (!root) return kExitNoAnswer;
  const Terminal& term = ctx.term();
  std::cout << term.paint("Dominator tree", "1") << " of " << str(result, "heap")
            << " (retained bytes: what freeing each object frees):\n";
  print_node(term, *root, 0);
  return kExitOk;
}

}  // namespace heapleak::client
