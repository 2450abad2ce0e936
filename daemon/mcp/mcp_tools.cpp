#include "daemon/mcp/mcp_tools.h"

#include <boost/json/value.hpp>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/base/safe_write.h"
#include "daemon/heap_store.h"
#include "daemon/mcp/mcp_catalog.h"
#include "daemon/mcp/mcp_text.h"
#include "protocol/error.h"
#include "protocol/error_codes.h"
#include "protocol/method_names.h"
#include "protocol/reply.h"

namespace heapleak::daemon {
namespace json = boost::json;
namespace methods = protocol::methods;
using protocol::RpcError;

namespace {

// What a method call answered: its result, or its error.
struct Outcome {
  bool ok = false;
  json::value result;
  RpcError error;
};
using Then = std::function<void(Outcome)>;

// What tool handlers share; copied into callbacks that outlive the call.
struct Env {
  std::shared_ptr<const protocol::Binder> methods;
  std::shared_ptr<protocol::Logger> logger;
};

// An argument the adapter reads itself (limit, offset) is wrong: an isError
// result in the daemon's words.
struct ArgumentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::size_t size_arg(const json::object& args, std::string_view key, std::size_t fallback) {
  const json::value* value = args.if_contains(key);
  if (!value || value->is_null()) return fallback;
  if (value->is_uint64()) return static_cast<std::size_t>(value->get_uint64());
  if (value->is_int64() && value->get_int64() >= 0)
    return static_cast<std::size_t>(value->get_int64());
  if (value->is_double() && value->get_double() >= 0 && value->get_double() < 9.0e15 &&
      std::floor(value->get_double()) == value->get_double()) {
    return static_cast<std::size_t>(value->get_double());  // 10.0 from some clients
  }
  throw ArgumentError("arguments." + std::string(key) + ": expected non-negative integer");
}

// Runs one registered method as if a client had sent it: params decoding,
// its execution policy (inline, query or load pool), waiting for a heap
// still loading, cancellation and progress all stay the method table's.
void run_method(const Env& env, std::string_view method, json::object params,
                const McpToolCall& call, Then then) {
  const protocol::Binder::RequestHandler* handler = env.methods->find_request(method);
  if (!handler) {
    then({false, nullptr, protocol::internal_error("no method " + std::string(method))});
    return;
  }
  auto deliver = [then = std::move(then)](json::object response) {
    Outcome outcome;
    if (const json::value* result = response.if_contains("result")) {
      outcome.ok = true;
      outcome.result = *result;
    } else {
      const json::object& error = response.at("error").as_object();
      outcome.error.code = static_cast<int>(error.at("code").to_number<std::int64_t>());
      outcome.error.message = std::string(error.at("message").as_string());
      if (const json::value* data = error.if_contains("data")) outcome.error.data = *data;
    }
    then(std::move(outcome));
  };
  const json::value id = "mcp";
  protocol::Reply reply(protocol::Reply::Target{
      id, std::string(method), std::move(deliver), call.progress, call.stop, {}, env.logger});
  const protocol::RequestContext context{id, std::string(method), call.stop, call.progress};
  protocol::detail::guard(reply,
                          [&] { (*handler)(json::value(std::move(params)), context, reply); });
}

// The daemon's error, for a model: the reason, the message with `params.`
// read as the tool's `arguments.`, and what to do next.
std::string error_text(const RpcError& error) {
  std::string message = error.message;
  if (error.code == protocol::kInvalidParams && message.rfind("params", 0) == 0) {
    message = "arguments" + message.substr(6);
  }
  std::string reason;
  if (error.data && error.data->is_object()) {
    if (const json::value* r = error.data->as_object().if_contains("reason"); r && r->is_string())
      reason = std::string(r->as_string());
  }
  static const std::map<std::string, std::string, std::less<>> kHints = {
      {"unknownHeap", "list_heaps shows the loaded heaps; load_dump loads one"},
      {"unknownAddress",
       "take addresses from find_leaks, leak_stats, inspect_object or path_to_root of this heap"},
      {"fileNotFound", "heapleakd reads the path itself, relative to its working directory"},
      {"notAHeapDump", "heapleak reads ObjectSpace.dump_all output (JSON lines, plain or gzip)"},
      {"overBudget", "unload_heap frees a heap; heapleakd --max-memory sets the budget"},
      {"noAnswer", "the object is not reachable from a GC root, or the dump has no ROOT records"},
  };
  std::string text = "Error: " + (reason.empty() ? message : reason + ": " + message);
  if (auto hint = kHints.find(reason); hint != kHints.end()) text += " (" + hint->second + ")";
  return text;
}

json::object success(std::string text, json::object structured) {
  return json::object{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}},
                      {"structuredContent", std::move(structured)}};
}

// Runs `body` with `done` answering what it throws: a result that cannot be
// rendered is an error result, never a call left unanswered.
template <class Body>
void answering(const McpToolDone& done, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    done(mcp_tool_error(std::string("Error: internal error: ") + e.what()));
  }
}

// Calls one method and renders its result; `shape` turns the method's result
// into the structuredContent (paging), `render` that into text.
void single(const Env& env, std::string_view method, json::object params, const McpToolCall& call,
            McpToolDone done, std::function<void(json::object&)> shape,
            std::string (*render)(const json::object&)) {
  run_method(env, method, std::move(params), call,
             [done = std::move(done), shape = std::move(shape), render](Outcome outcome) {
               if (!outcome.ok) return done(mcp_tool_error(error_text(outcome.error)));
               answering(done, [&] {
                 json::object result =
                     outcome.result.is_object() ? outcome.result.as_object() : json::object{};
                 if (shape) shape(result);
                 std::string text = render(result);
                 done(success(std::move(text), std::move(result)));
               });
             });
}

json::object without(json::object args, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) args.erase(key);
  return args;
}

// Keeps rows [offset, offset + limit) of result[key] (limit 0: all from
// offset), the method having been asked for offset + limit rows (+1 when
// it gives no count); sets `offset` and, when more rows exist, `nextOffset`.
void page(json::object& result, std::string_view key, std::size_t offset, std::size_t limit,
          std::optional<std::size_t> total) {
  json::value* rows = result.if_contains(key);
  if (!rows || !rows->is_array()) return;
  json::array& array = rows->as_array();
  const std::size_t available = total.value_or(array.size());
  const std::size_t first = std::min(offset, array.size());
  array.erase(array.begin(), array.begin() + static_cast<std::ptrdiff_t>(first));
  if (limit != 0 && array.size() > limit) array.resize(limit);
  result["offset"] = offset;
  if (limit != 0 && available > offset + limit) {
    const std::size_t next = offset + limit;
    auto* current = result.if_contains("nextOffset");
    if (!current || current->to_number<std::size_t>() < next) result["nextOffset"] = next;
  }
}

std::size_t count_of(const json::object& result, std::string_view key) {
  const json::value* value = result.if_contains(key);
  return value && value->is_number() ? value->to_number<std::size_t>() : 0;
}

// The window a paged method must return so that [offset, offset + limit)
// is in it; 0 stays 0 (all).
std::size_t upto(std::size_t offset, std::size_t limit, std::size_t extra = 0) {
  return limit == 0 ? 0 : offset + limit + extra;
}

void load_dump(const Env& env, const json::object& args, const McpToolCall& call,
               McpToolDone done) {
  single(env, methods::kLoadHeap, args, call, std::move(done), {}, &mcp_loaded_text);
}

void list_heaps(const Env& env, const json::object&, const McpToolCall& call, McpToolDone done) {
  single(env, methods::kListHeaps, {}, call, std::move(done), {}, &mcp_heaps_text);
}

void unload_heap(const Env& env, const json::object& args, const McpToolCall& call,
                 McpToolDone done) {
  single(env, methods::kUnloadHeap, args, call, std::move(done), {}, &mcp_unloaded_text);
}

// Rows a paged tool windows: the array, and the result field that counts
// them all (empty when the method gives no count).
struct Rows {
  std::string_view rows;
  std::string_view total;
};

// A paged tool: the method is asked for the rows up to offset + limit (one
// more when it does not count them, to tell whether more follow), and each
// of `windows` is cut to [offset, offset + limit).
void paged(const Env& env, std::string_view method, const json::object& args,
           const McpToolCall& call, McpToolDone done, std::size_t default_limit,
           std::vector<Rows> windows, std::string (*render)(const json::object&)) {
  const std::size_t limit = size_arg(args, "limit", default_limit);
  const std::size_t offset = size_arg(args, "offset", 0);
  const bool counted = !windows.front().total.empty();
  json::object params = without(args, {"offset"});
  params["limit"] = upto(offset, limit, counted ? 0 : 1);
  single(
      env, method, std::move(params), call, std::move(done),
      [offset, limit, windows = std::move(windows)](json::object& result) {
        for (const Rows& window : windows) {
          page(result, window.rows, offset, limit,
               window.total.empty() ? std::nullopt : std::optional(count_of(result, window.total)));
        }
      },
      render);
}

// Sample addresses per row or group: fewer than the wire's default, for a
// model's context.
json::object with_samples(json::object args) {
  args["samples"] = size_arg(args, "samples", 5);
  return args;
}

void find_leaks(const Env& env, const json::object& args, const McpToolCall& call,
                McpToolDone done) {
  paged(env, methods::kExplain, with_samples(args), call, std::move(done), 10,
        {{"leaks", "leakCount"}, {"noise", "noiseCount"}}, &mcp_leaks_text);
}

void leak_stats(const Env& env, const json::object& args, const McpToolCall& call,
                McpToolDone done) {
  paged(env, methods::kStats, with_samples(args), call, std::move(done), 20,
        {{"groups", "groupCount"}}, &mcp_stats_text);
}

void common_retainer(const Env& env, const json::object& args, const McpToolCall& call,
                     McpToolDone done) {
  // The Graphviz text is for renderers, not models: nodes and edges say the same.
  single(
      env, methods::kRoot, args, call, std::move(done),
      [](json::object& result) { result.erase("dot"); }, &mcp_retainer_text);
}

void owner(const Env& env, const json::object& args, const McpToolCall& call, McpToolDone done) {
  single(
      env, methods::kOwner, args, call, std::move(done),
      [](json::object& result) { result.erase("dot"); }, &mcp_owner_text);
}

void path_to_root(const Env& env, const json::object& args, const McpToolCall& call,
                  McpToolDone done) {
  single(env, methods::kPathToRoot, args, call, std::move(done), {}, &mcp_path_text);
}

void top_retainers(const Env& env, const json::object& args, const McpToolCall& call,
                   McpToolDone done) {
  paged(env, methods::kTopRetainers, args, call, std::move(done), 20,
        {{"retainers", ""}, {"classes", ""}}, &mcp_top_text);
}

// The dump record of `object` without what could make it huge: its
// references (the tool pages them) and a String's value past 4 KiB.
void trim_record(json::value& object) {
  json::value* record = object.is_object() ? object.as_object().if_contains("record") : nullptr;
  if (!record || !record->is_object()) return;
  json::object& fields = record->as_object();
  fields.erase("references");
  constexpr std::size_t kMaxValue = 4096;
  if (json::value* value = fields.if_contains("value");
      value && value->is_string() && value->as_string().size() > kMaxValue) {
    const json::string& text = value->as_string();
    std::size_t cut = kMaxValue;  // not inside a UTF-8 sequence
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    *value = json::string(text.subview(0, cut));
    fields["valueTruncated"] = true;
  }
}

// object, then a page of referrers, then a page of references, chained.
void inspect_object(const Env& env, const json::object& args, const McpToolCall& call,
                    McpToolDone done) {
  const std::size_t limit = size_arg(args, "limit", 20);
  const std::size_t referrers_offset = size_arg(args, "referrersOffset", 0);
  const std::size_t references_offset = size_arg(args, "referencesOffset", 0);
  json::object target = without(args, {"limit", "referrersOffset", "referencesOffset"});
  auto page_of = [target, limit](std::size_t offset) {
    json::object params = target;
    params["offset"] = offset;
    params["limit"] = limit;
    return params;
  };
  // A page's nextOffset, as the other paged tools give it.
  auto shaped = [](json::value page) {
    json::object result = page.as_object();
    const std::size_t end = count_of(result, "offset") + result["items"].as_array().size();
    if (end < count_of(result, "total")) result["nextOffset"] = end;
    return result;
  };
  run_method(env, methods::kObject, target, call, [=](Outcome object) {
    if (!object.ok) return done(mcp_tool_error(error_text(object.error)));
    run_method(env, methods::kReferrers, page_of(referrers_offset), call, [=](Outcome referrers) {
      if (!referrers.ok) return done(mcp_tool_error(error_text(referrers.error)));
      run_method(env, methods::kReferences, page_of(references_offset), call,
                 [=](Outcome references) {
                   if (!references.ok) return done(mcp_tool_error(error_text(references.error)));
                   answering(done, [&] {
                     json::value summary = object.result;
                     trim_record(summary);
                     json::object result{{"object", std::move(summary)},
                                         {"referrers", shaped(referrers.result)},
                                         {"references", shaped(references.result)}};
                     std::string text = mcp_object_text(result);
                     done(success(std::move(text), std::move(result)));
                   });
                 });
    });
  });
}

// A file:// URI for an absolute path: bytes other than unreserved ones and
// '/' percent-encoded (RFC 8089).
std::string file_uri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri.push_back(static_cast<char>(c));
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri;
}

// report's page written to `output` by the one safe write path (a link, a
// device or a folder others may write refused), answered as the file's path
// and a resource_link an agent hands a person.
void write_report(const Env& env, const json::object& args, const McpToolCall& call,
                  McpToolDone done) {
  const json::value* output = args.if_contains("output");
  if (!output || !output->is_string() || output->as_string().empty())
    throw ArgumentError("arguments.output: expected the path of the file to write");
  std::error_code ec;
  const std::string path =
      std::filesystem::absolute(std::string(output->as_string()), ec).lexically_normal().string();
  if (ec) throw ArgumentError("arguments.output: " + ec.message());
  // A model picks the path: only a page's name, so a slip cannot replace a
  // file of another kind (a config, a script) with HTML.
  if (!path.ends_with(".html") && !path.ends_with(".htm"))
    throw ArgumentError("arguments.output: expected a file name ending in .html or .htm");
  run_method(env, methods::kReport, without(args, {"output"}), call,
             [done = std::move(done), path](Outcome outcome) {
               if (!outcome.ok) return done(mcp_tool_error(error_text(outcome.error)));
               answering(done, [&] {
                 json::object result = outcome.result.as_object();
                 const json::string html = result.at("html").as_string();
                 if (auto error = write_file_safely(path, html, SpecialTarget::kRefuse))
                   return done(mcp_tool_error("Error: notWritable: " + error->message));
                 result.erase("html");
                 result["path"] = path;
                 result["uri"] = file_uri(path);
                 std::string text = mcp_report_text(result);
                 json::object answer = success(std::move(text), json::object{});
                 answer["content"].as_array().push_back(json::object{
                     {"type", "resource_link"},
                     {"uri", result["uri"]},
                     {"name", std::filesystem::path(path).filename().string()},
                     {"mimeType", "text/html"},
                     {"description", "heapleak's leak report, one self-contained page"}});
                 answer["structuredContent"] = std::move(result);
                 done(std::move(answer));
               });
             });
}

// A client that starts one server per call (the MCP Inspector's CLI) has no
// heap ids to give: a heap argument may be a dump's path instead. One that
// looks like a path (a '/', or a dump's suffix: .json, .gz, .jsonl) or names a
// file in heapleakd's working directory is made absolute, so the daemon loads
// it on first use and reloads it when the file changed (daemon/path_heaps.h),
// or says fileNotFound; ids and other names pass as they are.
void with_dump_paths(json::object& args) {
  for (std::string_view key : {"heap", "baseline", "target", "later"}) {
    json::value* value = args.if_contains(key);
    if (!value || !value->is_string()) continue;
    const std::string text(value->as_string());
    if (text.empty() || HeapStore::looks_like_id(text)) continue;
    std::error_code ec;
    const bool looks_like_path = text.find('/') != std::string::npos || text.ends_with(".json") ||
                                 text.ends_with(".gz") || text.ends_with(".jsonl");
    if (!looks_like_path && !std::filesystem::is_regular_file(text, ec)) continue;
    *value = std::filesystem::absolute(text, ec).lexically_normal().string();
  }
}

using Tool = void (*)(const Env&, const json::object&, const McpToolCall&, McpToolDone);

// Every name here has its definition in mcp_catalog.cpp (a unit test checks both ways).
const std::map<std::string, Tool, std::less<>>& tools() {
  static const std::map<std::string, Tool, std::less<>> table = {
      {"load_dump", &load_dump},
      {"list_heaps", &list_heaps},
      {"unload_heap", &unload_heap},
      {"find_leaks", &find_leaks},
      {"leak_stats", &leak_stats},
      {"common_retainer", &common_retainer},
      {"owner", &owner},
      {"path_to_root", &path_to_root},
      {"inspect_object", &inspect_object},
      {"top_retainers", &top_retainers},
      {"write_report", &write_report},
  };
  return table;
}

}  // namespace

json::object mcp_tool_error(std::string text) {
  return json::object{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}},
                      {"isError", true}};
}

McpTools::McpTools(std::shared_ptr<const protocol::Binder> methods,
                   std::shared_ptr<protocol::Logger> logger)
    : methods_(std::move(methods)),
      logger_(logger ? std::move(logger) : protocol::make_null_logger()) {}

const json::array& McpTools::definitions() const { return mcp_tool_definitions(); }

bool McpTools::has(std::string_view name) const { return tools().count(name) != 0; }

void McpTools::call(std::string_view name, McpToolCall call, McpToolDone done) const {
  const Env env{methods_, logger_};
  with_dump_paths(call.arguments);
  try {
    tools().find(name)->second(env, call.arguments, call, done);
  } catch (const ArgumentError& e) {
    done(mcp_tool_error(std::string("Error: ") + e.what()));
  }
}

}  // namespace heapleak::daemon
