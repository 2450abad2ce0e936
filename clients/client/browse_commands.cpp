// inspect, referrers, references: one object and its edges, a page at a time.
#include <boost/json.hpp>
#include <iostream>

#include "clients/client/commands.h"
#include "clients/client/exit_codes.h"
#include "clients/client/heap_resolver.h"
#include "clients/client/output.h"
#include "clients/client/table.h"

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
  const json::value* items = member(result, "items");
  const std::size_t count = items && items->is_array() ? items->as_array().size() : 0;
  const std::uint64_t offset = num(result, "offset");
  const std::uint64_t total = num(result, "total");
  if (count > 0) {
    Table table({{"ADDRESS", false, false, "36"},
                 {"TYPE", false, false, ""},
                 {"CLASS", false, true, ""},
                 {"BYTES", true, false, ""},
                 {"LOCATION", false, true, ""}});
    for (const auto& brief : items->as_array()) table.add(brief_row(brief));
    table.print(std::cout, ctx.term());
  }
  std::cout << (count ? std::to_string(offset + 1) + "-" + std::to_string(offset + count) + " of "
                      : "0 of ")
            << grouped(total) << " " << method << " of " << text::field(result, "address");
  if (offset + count < total) std::cout << " (next page: --offset " << offset + count << ")";
  std::cout << "\n";
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
  std::vector<std::pair<std::string, std::string>> fields = {
      {"address", str(result, "address")},
      {"type", str(result, "type")},
      {"class", str(result, "class")},
      {"memsize", human_bytes(static_cast<double>(num(result, "memsize"))) + " (" +
                      grouped(num(result, "memsize")) + " bytes)"},
  };
  if (auto where = location(result); !where.empty()) fields.emplace_back("allocated at", where);
  if (auto method = str(result, "method"); !method.empty()) fields.emplace_back("method", method);
  if (member(result, "generation"))
    fields.emplace_back("generation", std::to_string(num(result, "generation")));
  fields.emplace_back("references", grouped(num(result, "referencesCount")));
  fields.emplace_back("referrers", grouped(num(result, "referrersCount")));
  fields.emplace_back("heap", str(result, "heap"));
  if (auto error = str(result, "recordError"); !error.empty())
    fields.emplace_back("record error", error);
  print_fields(std::cout, ctx.term(), fields);
  if (const json::value* record = member(result, "record"); record && record->is_object()) {
    std::cout << ctx.term().paint("record:", "1") << "\n";
    std::vector<std::pair<std::string, std::string>> lines;
    for (const auto& [key, value] : record->as_object()) {
      lines.emplace_back("  " + std::string(key), value.is_string() ? std::string(value.as_string())
                                                                    : json::serialize(value));
    }
    print_fields(std::cout, ctx.term(), lines);
  }
  return kExitOk;
}

int run_referrers(CommandContext& ctx) { return run_page(ctx, "referrers"); }

int run_references(CommandContext& ctx) { return run_page(ctx, "references"); }

}  // namespace heapleak::client
