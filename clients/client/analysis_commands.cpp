// stats, root, path: the leak diff, the common retainer (as a graph) and the
// path from a GC root, with heaps named by id, name or dump path.
#include <boost/json.hpp>
#include <iostream>

#include "clients/client/commands.h"
#include "clients/client/exit_codes.h"
#include "clients/client/graphviz.h"
#include "clients/client/heap_resolver.h"
#include "clients/client/output.h"
#include "clients/client/table.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

constexpr std::size_t kDefaultTableGroups = 20;
constexpr std::size_t kSamplesShown = 3;
// The wire has no "all" for samples (0 means none): ask for more than any
// group can hold.
constexpr std::uint64_t kEveryAddress = UINT32_MAX;

std::string describe(const json::value& brief) {
  std::string name = str(brief, "name");
  if (name.empty()) name = str(brief, "class");
  std::string text = str(brief, "address") + " " + name;
  if (auto where = location(brief); !where.empty()) text += " (" + where + ")";
  return text;
}

}  // namespace

int run_stats(CommandContext& ctx) {
  const Args& args = ctx.args();
  json::object params = leak_diff_params(ctx, kDefaultTableGroups);
  if (args.value("--samples")) {
    params["samples"] = args.number("--samples", 50);
  } else if (ctx.json()) {
    params["samples"] = kEveryAddress;  // --json lists every address, as the README says
  }
  const json::value result = ctx.rpc().call_or_throw("stats", std::move(params));
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  const Terminal& term = ctx.term();
  const json::value* total = member(result, "total");
  const std::uint64_t group_count = num(result, "groupCount");
  std::cout << term.paint(diff_heading(result), "1") << ": "
            << grouped(total ? num(*total, "count") : 0) << " objects, "
            << human_bytes(static_cast<double>(total ? num(*total, "memsize") : 0)) << " in "
            << grouped(group_count) << (group_count == 1 ? " group" : " groups") << " by "
            << str(result, "groupBy") << "\n";
  Table table({{"GROUP", false, true, ""},
               {"COUNT", true, false, ""},
               {"BYTES", true, false, ""},
               {"SAMPLES", false, true, "36"}});
  const json::value* groups = member(result, "groups");
  std::size_t shown = 0;
  if (groups && groups->is_array()) {
    for (const auto& group : groups->as_array()) {
      std::string samples;
      const json::value* list = member(group, "samples");
      std::size_t k = 0;
      if (list && list->is_array()) {
        for (const auto& address : list->as_array()) {
          if (k++ == kSamplesShown) break;
          if (address.is_string())
            samples += (samples.empty() ? "" : " ") + std::string(address.as_string());
        }
      }
      table.add({str(group, "key"), grouped(num(group, "count")),
                 human_bytes(static_cast<double>(num(group, "memsize"))), samples});
      ++shown;
    }
  }
  if (!table.empty()) table.print(std::cout, term);
  if (group_count > shown) {
    std::cout << "... " << grouped(group_count - shown) << " more groups (--limit 0 shows all)\n";
  }
  // stats only diffs (no references): explain names the container of each leak.
  if (group_count > 0)
    std::cout << "Groups that are mostly VM internals come last; `heapleak-client explain` names "
                 "the container that holds each leak.\n";
  if (const json::value* warnings = member(result, "warnings"); warnings && warnings->is_array()) {
    for (const auto& warning : warnings->as_array()) {
      if (warning.is_string())
        std::cerr << "heapleak-client: warning: " << warning.as_string().c_str() << "\n";
    }
  }
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
  const json::value* retainer = member(result, "retainerObject");
  const json::value* sample_list = member(result, "samples");
  const std::size_t sample_count =
      sample_list && sample_list->is_array() ? sample_list->as_array().size() : 0;
  std::string summary;
  if (retainer) {
    summary = "retainer " + describe(*retainer) + ": holds " +
              std::to_string(num(result, "samplesReached")) + " of " +
              std::to_string(sample_count) + " samples at distance " +
              std::to_string(num(result, "distance"));
  } else {
    summary = "no common retainer: " +
              std::string(flag(result, "budgetExhausted")
                              ? "the search gave up after visiting " +
                                    grouped(num(result, "visited")) + " references (--max-visits)"
                              : "no single object holds the samples (try --min-samples)");
  }
  // Samples held by different containers: which container holds which samples.
  if (const json::value* groups = member(result, "groups"); groups && groups->is_array()) {
    summary += "\n" + str(result, "retainerNote");
    for (const auto& group : groups->as_array()) {
      const json::value* holder = member(group, "retainer");
      const json::value* members = member(group, "samples");
      summary +=
          "\n  " +
          (holder && holder->is_object() ? describe(*holder) : std::string("(no container)")) +
          " holds";
      if (members && members->is_array()) {
        for (const auto& sample : members->as_array())
          if (sample.is_string()) summary += " " + std::string(sample.as_string());
      }
    }
  } else if (auto note = str(result, "retainerNote"); !note.empty()) {
    summary += "\n" + note;
  }
  write_graph(graph, str(result, "dot"));
  // stdout carries the graph unless it went to a file; the summary goes where it does no harm.
  (output.empty() ? std::cerr : std::cout)
      << summary << (output.empty() ? "" : "; graph written to " + output) << "\n";
  return retainer ? kExitOk : kExitNoAnswer;
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
  std::cout << ctx.term().paint("root: " + str(result, "root"), "1") << "\n";
  const json::value* objects = member(result, "objects");
  // HELD IN: the ivar of the object above that holds this one (dumps of Ruby
  // 3.2+ name it); the column is left out when no hop has one.
  bool any_via = false;
  if (objects && objects->is_array()) {
    for (const auto& brief : objects->as_array())
      any_via |= !via_text(member(brief, "via")).empty();
  }
  std::vector<Column> columns{{"#", true, false, ""},     {"ADDRESS", false, false, "36"},
                              {"TYPE", false, false, ""}, {"CLASS", false, true, ""},
                              {"BYTES", true, false, ""}, {"LOCATION", false, true, ""}};
  if (any_via) columns.insert(columns.begin() + 4, {"HELD IN", false, true, ""});
  Table table(std::move(columns));
  std::size_t k = 0;
  if (objects && objects->is_array()) {
    for (const auto& brief : objects->as_array()) {
      std::vector<std::string> row = brief_row(brief);
      row.insert(row.begin(), std::to_string(k++));
      if (any_via) row.insert(row.begin() + 4, via_text(member(brief, "via")));
      table.add(std::move(row));
    }
  }
  table.print(std::cout, ctx.term());
  return kExitOk;
}

}  // namespace heapleak::client
