#include "clients/client/heap_resolver.h"

#include <unistd.h>

#include <filesystem>

#include "clients/client/exit_codes.h"
#include "clients/client/progress_bar.h"

namespace heapleak::client {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string field(const json::value& object, std::string_view key) {
  const json::value* value = object.is_object() ? object.as_object().if_contains(key) : nullptr;
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

bool looks_like_path(const std::string& arg) {
  return arg.find('/') != std::string::npos || arg.ends_with(".json") || arg.ends_with(".gz") ||
         arg.ends_with(".heap") || arg.ends_with(".jsonl");
}

}  // namespace

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  return (ec ? fs::path(path) : absolute).lexically_normal().string();
}

json::value load_with_progress(CommandContext& ctx, const std::string& path,
                               const std::optional<std::string>& name) {
  static int next_token = 1;
  json::object params{{"path", path},
                      {"workDoneToken", "heapleak-client-" + std::to_string(::getpid()) + "-" +
                                            std::to_string(next_token++)}};
  if (name) params["name"] = *name;
  ProgressBar bar(ctx.term().stderr_tty, ctx.term().width);
  RpcClient& rpc = ctx.rpc();
  auto result = rpc.call_or_throw("loadHeap", std::move(params),
                                  [&bar](std::string_view method, const json::value& p) {
                                    if (method == "$/progress") bar.update(p);
                                  });
  bar.clear();
  return result;
}

std::string resolve_heap(CommandContext& ctx, const std::string& arg, bool may_load) {
  std::error_code ec;
  const bool is_file = fs::exists(arg, ec);
  const json::value listing = ctx.rpc().call_or_throw("listHeaps", json::object{});
  const json::array& heaps = listing.as_object().at("heaps").as_array();
  if (is_file || looks_like_path(arg)) {
    // A path is a path: never a heap another folder loaded under that name.
    // The daemon gets the path, not an id, so it checks the file is still
    // the one it loaded (and reloads it when a new dump rewrote it).
    const std::string path = absolute_path(arg);
    if (!may_load) return path;  // unload: the daemon finds the heap by path, file or not
    if (!is_file) {
      std::string hint;
      for (const auto& heap : heaps) {
        if (field(heap, "name") == arg) {
          hint = "; a heap named " + arg + " is loaded from " + field(heap, "path") +
                 ": give its id " + field(heap, "heap") + " to use it";
          break;
        }
      }
      throw ClientError{kExitFileNotFound, path + ": no such file" + hint};
    }
    for (const auto& heap : heaps) {
      if (field(heap, "path") == path) return path;
    }
    load_with_progress(ctx, path, std::nullopt);
    return path;
  }
  for (const auto& heap : heaps) {
    if (field(heap, "heap") == arg) return arg;
  }
  for (const auto& heap : heaps) {
    if (field(heap, "name") == arg) return field(heap, "heap");
  }
  return arg;  // let the daemon say unknownHeap
}

boost::json::object leak_diff_params(CommandContext& ctx, std::size_t table_limit) {
  const Args& args = ctx.args();
  boost::json::object params;
  if (args.positionals.size() > 3) {
    // explain's series D1..DN (stats takes three at most).
    boost::json::array heaps;
    for (const auto& heap : args.positionals) heaps.emplace_back(resolve_heap(ctx, heap));
    params["heaps"] = std::move(heaps);
  } else {
    params["baseline"] = resolve_heap(ctx, args.positionals[0]);
    params["target"] = resolve_heap(ctx, args.positionals[1]);
    if (args.positionals.size() > 2) params["later"] = resolve_heap(ctx, args.positionals[2]);
  }
  if (auto by = args.value("--by")) params["groupBy"] = *by;
  if (args.value("--limit")) {
    params["limit"] = args.number("--limit", 0);
  } else if (!ctx.json()) {
    params["limit"] = table_limit;
  }
  return params;
}

}  // namespace heapleak::client
