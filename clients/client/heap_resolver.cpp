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

json::value call_with_progress(CommandContext& ctx, const std::string& method,
                               json::object params) {
  static int next_token = 1;
  params["workDoneToken"] =
      "heapleak-client-" + std::to_string(::getpid()) + "-" + std::to_string(next_token++);
  ProgressBar bar(ctx.term().stderr_tty, ctx.term().width);
  RpcClient& rpc = ctx.rpc();
  auto result = rpc.call_or_throw(method, std::move(params),
                                  [&bar](std::string_view notice, const json::value& p) {
                                    if (notice == "$/progress") bar.update(p);
                                  });
  bar.clear();
  return result;
}

json::value load_with_progress(CommandContext& ctx, const std::string& path,
                               const std::optional<std::string>& name) {
  json::object params{{"path", path}};
  if (name) params["name"] = *name;
  return call_with_progress(ctx, "loadHeap", std::move(params));
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

boost::json::object leak_diff_params(CommandContext& ctx, std::optional<std::size_t> table_limit) {
  const Args& args = ctx.args();
  // Dump files go as they are, absolute: the daemon plans and runs their
  // loads (B with references first, A and C identity-only beside it) in
  // the one request. Anything else (ids, names) is resolved first.
  std::vector<std::string> heaps;
  for (const auto& arg : args.positionals) {
    std::error_code ec;
    heaps.push_back(fs::is_regular_file(arg, ec) ? absolute_path(arg) : resolve_heap(ctx, arg));
  }
  boost::json::object params;
  if (heaps.size() > 3) {
    // explain's series D1..DN (stats takes three at most).
    params["heaps"] = boost::json::array(heaps.begin(), heaps.end());
  } else {
    params["baseline"] = heaps[0];
    params["target"] = heaps[1];
    if (heaps.size() > 2) params["later"] = heaps[2];
  }
  if (auto by = args.value("--by")) params["groupBy"] = *by;
  if (args.value("--limit")) {
    params["limit"] = args.number("--limit", 0);
  } else if (!ctx.json() && table_limit) {
    params["limit"] = *table_limit;
  }
  return params;
}

}  // namespace heapleak::client
