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

namespace heapleak::client {
namespace json = boost::json;

namespace {

constexpr std::size_t kDefaultExplained =
    10;                                  // groups explained in the text form, as `heapleak explain`
constexpr std::size_t kOwnersShown = 3;  // owners per group in the text form
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

// "0x.. ARRAY (app.rb:3)" from an object brief (key, not class: as the CLI).
std::string describe_brief(const json::value& brief) {
  std::string text = str(brief, "address") + " " + str(brief, "key");
  if (auto where = location(brief); !where.empty()) text += " (" + where + ")";
  return text;
}

std::string bytes(const json::value& object, std::string_view key) {
  return human_bytes(static_cast<double>(num(object, key)));
}

void print_warnings(const json::value& result) {
  if (const json::value* warnings = member(result, "warnings"); warnings && warnings->is_array()) {
    for (const auto& warning : warnings->as_array()) {
      if (warning.is_string())
        std::cerr << "heapleak-client: warning: " << warning.as_string().c_str() << "\n";
    }
  }
}

void print_tree(std::ostream& out, const Terminal& term, const json::value& node,
                std::size_t depth) {
  const json::value* children = member(node, "children");
  if (!children || !children->is_array()) return;
  for (const auto& child : children->as_array()) {
    std::string line = std::string(2 * depth + 2, ' ') + str(child, "key") + " (" +
                       grouped(num(child, "count")) + ")";
    if (auto example = str(child, "example"); !example.empty())
      line += "  " + term.paint("e.g. " + example, "36");
    out << line << "\n";
    print_tree(out, term, child, depth + 1);
  }
}

const json::array* array_of(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  return value && value->is_array() ? &value->as_array() : nullptr;
}

std::string count_or_unknown(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  return value && (value->is_int64() || value->is_uint64()) ? grouped(num(object, key)) : "?";
}

// One leak row of `explain`: the holder with its growth, how Ruby reaches
// it, the path in Ruby names, the leaked objects by class (and site).
void print_leak_row(std::ostream& out, const Terminal& term, const json::value& leak) {
  out << term.paint(str(leak, "key"), "1") << ": " << grouped(num(leak, "count"))
      << (num(leak, "count") == 1 ? " object, " : " objects, ") << bytes(leak, "memsize")
      << ", retaining " << bytes(leak, "retained") << "\n";
  if (const json::value* holder = member(leak, "holder"); holder && holder->is_object()) {
    out << "   holder: " << term.paint(str(*holder, "address") + " " + str(*holder, "name"), "36");
    if (const json::value* growth = member(leak, "growth"); growth && growth->is_object()) {
      out << " (" << str(*growth, "field") << " " << count_or_unknown(*growth, "baseline") << " -> "
          << count_or_unknown(*growth, "target") << " -> " << count_or_unknown(*growth, "later")
          << ")";
    }
    out << "\n";
    if (const json::value* reach = member(leak, "reach"); reach && reach->is_object()) {
      out << "   reach:  " << str(*reach, "kind") << " " << str(*reach, "name") << " (ROOT "
          << str(*reach, "root") << ")\n";
    }
  }
  if (const json::value* block = member(leak, "block"); block && block->is_string())
    out << "   block:  " << block->as_string().c_str() << "\n";
  if (const json::array* names = array_of(leak, "pathNames"); names && !names->empty()) {
    out << "   path:  ";
    for (std::size_t k = 0; k < names->size(); ++k) {
      if ((*names)[k].is_string()) out << (k ? " -> " : " ") << (*names)[k].as_string().c_str();
    }
    out << "\n";
  }
  if (const json::array* objects = array_of(leak, "objects")) {
    std::size_t shown = 0;
    for (const auto& entry : *objects) {
      if (shown++ == 5) {
        out << "   ... " << objects->size() - 5 << " more classes (--json lists them)\n";
        break;
      }
      out << "   " << grouped(num(entry, "count")) << " x " << str(entry, "name") << " ("
          << bytes(entry, "memsize") << ")";
      if (const json::array* sites = array_of(entry, "sites"); sites && !sites->empty()) {
        out << " at " << str(sites->front(), "site");
        if (sites->size() > 1) out << " and " << sites->size() - 1 << " more sites";
      }
      out << "\n";
    }
  }
}

}  // namespace

int run_explain(CommandContext& ctx) {
  json::object params = leak_diff_params(ctx, kDefaultExplained);
  const std::string baseline(params["baseline"].as_string());
  const std::string later =
      params.contains("later") ? std::string(params["later"].as_string()) : std::string();
  const json::value result = ctx.rpc().call_or_throw("explain", std::move(params));
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  const Terminal& term = ctx.term();
  const json::value* total = member(result, "total");
  std::cout << term.paint("Leaks by bytes retained", "1") << " ("
            << grouped(total ? num(*total, "count") : 0) << " objects, "
            << human_bytes(static_cast<double>(total ? num(*total, "memsize") : 0)) << " new in "
            << str(result, "target") << " since " << baseline
            << (later.empty() ? "" : ", still alive in " + later) << "):\n";
  std::size_t rank = 0;
  if (const json::array* leaks = array_of(result, "leaks")) {
    for (const auto& leak : *leaks) {
      std::cout << ++rank << ". ";
      print_leak_row(std::cout, term, leak);
    }
  }
  if (const json::array* noise = array_of(result, "noise"); noise && !noise->empty()) {
    std::cout << "\n" << term.paint("Probably not leaks", "1") << ":\n";
    for (const auto& row : *noise) {
      std::cout << "-  " << str(row, "key") << ": " << grouped(num(row, "count"))
                << (num(row, "count") == 1 ? " object, " : " objects, ") << bytes(row, "memsize")
                << ", retaining " << bytes(row, "retained") << "\n   "
                << term.paint(str(row, "reason"), "33") << ": " << str(row, "why") << "\n";
    }
  }
  if (rank == 0)
    std::cout << "nothing to explain: no objects are new in " << str(result, "target") << "\n";
  print_warnings(result);
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
        has_owner ? "owner " + describe_brief(*owner) + " retains " + bytes(*owner, "retained")
        : reachable == 0 ? std::string("none of the objects is reachable from a GC root")
                         : "no single object owns all " + grouped(reachable) + " objects";
    write_graph(graph, str(result, "dot"));
    // stdout carries the graph unless it went to a file, as `root`.
    (graph.file.empty() ? std::cerr : std::cout)
        << summary << (graph.file.empty() ? "" : "; graph written to " + graph.file) << "\n";
    return code;
  }
  const Terminal& term = ctx.term();
  KeyCache keys(ctx, str(result, "heap"));
  if (reachable == 0) {
    std::cout << "None of the objects is reachable from a GC root.\n";
  } else if (has_owner) {
    std::cout << term.paint("Owner:", "1") << " " << term.paint(describe_brief(*owner), "36")
              << " retains " << bytes(*owner, "retained") << "\n";
  } else {
    std::cout << term.paint("No single object owns all " + grouped(reachable) +
                                " objects; owners of its parts:",
                            "1")
              << "\n";
    if (const json::array* owners = array_of(result, "owners")) {
      for (const auto& part : *owners) {
        const std::string who =
            str(part, "address").empty() ? std::string("(a GC root itself)") : describe_brief(part);
        std::cout << "  " << who << " retains " << bytes(part, "retained") << " ("
                  << grouped(num(part, "objects")) << " objects)\n";
      }
    }
  }
  if (const json::array* path = array_of(result, "path"); path && !path->empty()) {
    std::cout << term.paint("Path:", "1") << "  " << keys.path(result) << "\n";
  }
  if (const json::array* unreachable = array_of(result, "unreachable");
      unreachable && !unreachable->empty()) {
    std::cout << grouped(unreachable->size()) << " of the objects "
              << (unreachable->size() == 1 ? "is" : "are") << " not reachable from a GC root\n";
  }
  if (reachable > 0) {
    std::cout << term.paint("Merged shortest paths from the GC roots:", "1") << "\n";
    if (const json::value* paths = member(result, "paths")) print_tree(std::cout, term, *paths, 0);
  }
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
  if (ctx.json()) {
    // topRetainers' result, with duplicateStrings' list alongside.
    if (result.is_object()) {
      const json::value* list = member(strings, "strings");
      result.as_object()["duplicateStrings"] = list ? *list : json::value(json::array());
    }
    print_json(std::cout, result);
    return kExitOk;
  }
  const Terminal& term = ctx.term();
  const json::array* classes = array_of(result, "classes");
  const json::value* unreachable = member(result, "unreachable");
  std::cout << term.paint(std::string("Retained by ") + (classes ? "class" : "object"), "1") << " ("
            << grouped(num(result, "reachable")) << " objects reachable from GC roots, "
            << grouped(unreachable ? num(*unreachable, "count") : 0) << " unreachable holding "
            << human_bytes(static_cast<double>(unreachable ? num(*unreachable, "memsize") : 0))
            << ") in " << str(result, "heap") << ":\n";
  if (classes) {
    Table table(
        {{"RETAINED", true, false, ""}, {"KEY", false, true, "36"}, {"OBJECTS", true, false, ""}});
    for (const auto& entry : *classes) {
      table.add({bytes(entry, "retained"), str(entry, "key"), grouped(num(entry, "count"))});
    }
    if (!table.empty()) table.print(std::cout, term);
  } else if (const json::array* retainers = array_of(result, "retainers")) {
    // As `heapleak top`: retained, the object, where it was allocated (`retained ADDR` tells its
    // dominator).
    Table table({{"RETAINED", true, false, ""},
                 {"ADDRESS", false, false, "36"},
                 {"KEY", false, true, ""},
                 {"LOCATION", false, true, ""}});
    for (const auto& entry : *retainers) {
      table.add(
          {bytes(entry, "retained"), str(entry, "address"), str(entry, "key"), location(entry)});
    }
    if (!table.empty()) table.print(std::cout, term);
  }
  if (const json::array* dups = array_of(strings, "strings"); dups && !dups->empty()) {
    std::cout << term.paint("Duplicate strings (same content, many copies):", "1") << "\n";
    Table table({{"COPIES", true, false, ""},
                 {"WASTED", true, false, ""},
                 {"VALUE", false, true, ""},
                 {"SAMPLE", false, false, "36"}});
    for (const auto& dup : *dups) {
      const json::value* value = member(dup, "value");
      const json::array* samples = array_of(dup, "samples");
      table.add(
          {grouped(num(dup, "count")), bytes(dup, "wasted"),
           value && value->is_string() ? json::serialize(*value) : std::string("(not read back)"),
           samples && !samples->empty() && samples->front().is_string()
               ? std::string(samples->front().as_string())
               : std::string()});
    }
    table.print(std::cout, term);
  }
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
