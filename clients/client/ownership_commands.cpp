// explain, owner, top, retained: who holds the memory, from the daemon's
// dominator tree (the ownership methods of docs/protocol.md). Text as the
// one-shot `heapleak explain|owner|top` prints it; --json as it came.
#include <boost/json.hpp>
#include <iostream>
#include <map>

#include "clients/client/commands.h"
#include "clients/client/exit_codes.h"
#include "clients/client/graphviz.h"
#include "clients/client/heap_resolver.h"
#include "clients/client/output.h"
#include "clients/client/table.h"
#include "results/text/render.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

constexpr std::size_t kDuplicateStrings = 5;  // `top`'s second section, as `heapleak top`

// Class keys of addresses ("CLASS:Leaky", "ARRAY"), asked with `retained`
// (the dominator tree is already built; no dump record is read) and
// remembered: results carry paths as bare addresses.
class KeyCache {
 public:
  KeyCache(CommandContext& ctx, std::string heap) : ctx_(ctx), heap_(std::move(heap)) {}

  std::string key(const std::string& address) {
    auto [it, fresh] = keys_.try_emplace(address);
    if (!fresh) return it->second;
    RpcReply reply =
        ctx_.rpc().call("retained", json::object{{"heap", heap_}, {"address", address}});
    if (reply.error) {
      // Ctrl-C still ends the command; any other failure only loses the key.
      if (exit_code_for_error(*reply.error) == kExitCancelled) throw error_from_reply(*reply.error);
      return {};
    }
    it->second = str(reply.result, "key");
    return it->second;
  }

  // "ADDR KEY", or the address alone when the key is unknown.
  std::string describe(const std::string& address) {
    const std::string k = key(address);
    return k.empty() ? address : address + " " + k;
  }

  // "ROOT vm -> 0x.. CLASS:Foo -> 0x.. ARRAY" from a result's root and path.
  std::string path(const json::value& result) {
    const json::value* addresses = member(result, "path");
    if (!addresses || !addresses->is_array() || addresses->as_array().empty()) {
      return "(not reachable from a GC root)";
    }
    std::string text = "ROOT " + str(result, "root");
    for (const auto& address : addresses->as_array()) {
      if (address.is_string()) text += " -> " + describe(std::string(address.as_string()));
    }
    return text;
  }

 private:
  CommandContext& ctx_;
  std::string heap_;
  std::map<std::string, std::string> keys_;
};

std::string bytes(const json::value& object, std::string_view key) {
  return human_bytes(static_cast<double>(num(object, key)));
}

}  // namespace

int run_explain(CommandContext& ctx) {
  // No limit: the daemon's default, the rows `heapleak explain` shows (engine/explain.h).
  json::object params = leak_diff_params(ctx, std::nullopt);
  const json::value result = call_with_progress(ctx, "explain", std::move(params));
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  print_doc(ctx.term(), text::explain_text(result, {" (--limit 0 shows all)"}));
  return kExitOk;
}

int run_report(CommandContext& ctx) {
  // The daemon's `report`: the page `heapleak report` writes, to -o or stdout.
  json::object params = leak_diff_params(ctx, std::nullopt);
  const json::value result = call_with_progress(ctx, "report", std::move(params));
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  const json::value* html = member(result, "html");
  if (!html || !html->is_string()) throw ClientError{kExitNoAnswer, "the daemon sent no page"};
  if (auto file = ctx.args().value("-o")) {
    write_file(*file, std::string(html->as_string()));
    std::cerr << "heapleak-client: wrote " << *file << " ("
              << human_bytes(static_cast<double>(html->as_string().size())) << ")\n";
  } else {
    std::cout << std::string_view(html->as_string());
    std::cout.flush();
  }
  for (const std::string& warning : text::strings_of(result, "warnings"))
    std::cerr << "heapleak-client: warning: " << warning << "\n";
  return kExitOk;
}

int run_owner(CommandContext& ctx) {
  const Args& args = ctx.args();
  // The merged paths go out as a graph when asked for (--format or -o), else as text.
  const bool as_graph = args.value("--format") || args.value("-o");
  const GraphOutput graph = graph_output(args, ctx.json());
  json::array addresses;
  for (std::size_t k = 1; k < args.positionals.size(); ++k)
    addresses.emplace_back(args.positionals[k]);
  const json::value result = ctx.rpc().call_or_throw(
      "owner", json::object{{"heap", resolve_heap(ctx, args.positionals[0])},
                            {"addresses", std::move(addresses)}});
  const std::uint64_t reachable = num(result, "objects");
  const int code = reachable == 0 ? kExitNoAnswer : kExitOk;
  if (ctx.json()) {
    if (graph.file.empty()) {
      print_json(std::cout, result);
    } else {
      write_file(graph.file, json::serialize(result) + "\n");
    }
    return code;
  }
  const json::value* owner = member(result, "owner");
  const bool has_owner = owner && owner->is_object();
  if (as_graph) {
    std::string summary =
        has_owner ? "owner " + text::describe(*owner) + " retains " + bytes(*owner, "retained")
        : reachable == 0 ? std::string("none of the objects is reachable from a GC root")
                         : "no single object owns all " + grouped(reachable) + " objects";
    write_graph(graph, str(result, "dot"));
    // stdout carries the graph unless it went to a file, as `root`.
    (graph.file.empty() ? std::cerr : std::cout)
        << summary << (graph.file.empty() ? "" : "; graph written to " + graph.file) << "\n";
    return code;
  }
  print_doc(ctx.term(), text::owner_text(result));
  return code;
}

int run_top(CommandContext& ctx) {
  const Args& args = ctx.args();
  const std::string heap = resolve_heap(ctx, args.positionals[0]);
  json::object params{{"heap", heap}};
  if (auto by = args.value("--by")) params["groupBy"] = *by;
  if (args.value("--limit")) params["limit"] = args.number("--limit", 20);
  json::value result = ctx.rpc().call_or_throw("topRetainers", std::move(params));
  const json::value strings = ctx.rpc().call_or_throw(
      "duplicateStrings", json::object{{"heap", heap}, {"limit", kDuplicateStrings}});
  // topRetainers' result with duplicateStrings' list alongside, as `heapleak top` prints it.
  if (result.is_object()) {
    const json::value* list = member(strings, "strings");
    result.as_object()["duplicateStrings"] = list ? *list : json::value(json::array());
  }
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  print_doc(ctx.term(), text::top_text(result));
  return kExitOk;
}

int run_retained(CommandContext& ctx) {
  const Args& args = ctx.args();
  const std::string heap = resolve_heap(ctx, args.positionals[0]);
  const json::value result = ctx.rpc().call_or_throw(
      "retained", json::object{{"heap", heap}, {"address", args.positionals[1]}});
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  const json::value* dominator = member(result, "dominator");
  std::string dominated_by;
  if (!flag(result, "reachable")) {
    dominated_by = "none (not reachable from a GC root)";
  } else if (dominator && dominator->is_string() && dominator->as_string() == "ROOT") {
    dominated_by = "ROOT (a GC root's target, or reached from several roots)";
  } else if (dominator && dominator->is_string()) {
    KeyCache keys(ctx, heap);
    dominated_by = keys.describe(std::string(dominator->as_string()));
  }
  std::vector<std::pair<std::string, std::string>> fields = {
      {"address", str(result, "address")},
      {"type", str(result, "type")},
      {"class", str(result, "class")},
      {"key", str(result, "key")},
      {"memsize", bytes(result, "memsize") + " (" + grouped(num(result, "memsize")) + " bytes)"},
      {"retained", bytes(result, "retained") + " (" + grouped(num(result, "retained")) + " bytes)"},
      {"reachable", flag(result, "reachable") ? "yes" : "no"},
      {"dominator", dominated_by},
  };
  if (auto where = location(result); !where.empty()) fields.emplace_back("allocated at", where);
  print_fields(std::cout, ctx.term(), fields);
  return kExitOk;
}

}  // namespace heapleak::client
