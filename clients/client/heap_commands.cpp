// load, list, unload, stop: the daemon's heap store from the shell.
#include <signal.h>

#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "clients/client/commands.h"
#include "clients/client/exit_codes.h"
#include "clients/client/heap_resolver.h"
#include "clients/client/output.h"
#include "results/text/render.h"

namespace heapleak::client {
namespace json = boost::json;

int run_load(CommandContext& ctx) {
  const std::string path = absolute_path(ctx.args().positionals.at(0));
  const json::value result = load_with_progress(ctx, path, ctx.args().value("--name"));
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  print_doc(ctx.term(), text::loaded_text(result));  // warnings on stderr
  return kExitOk;
}

int run_list(CommandContext& ctx) {
  const json::value result = ctx.rpc().call_or_throw("listHeaps", json::object{});
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  print_doc(ctx.term(), text::heaps_text(result));
  return kExitOk;
}

int run_unload(CommandContext& ctx) {
  const std::string heap = resolve_heap(ctx, ctx.args().positionals.at(0), /*may_load=*/false);
  const json::value result = ctx.rpc().call_or_throw("unloadHeap", json::object{{"heap", heap}});
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  // Not text::unloaded_text ("Unloaded heap h1 (A)."), which MCP says:
  // tests/client pins this wording and MCP's transcript that one, so one
  // voice waits for one of the two to change.
  std::cout << "unloaded " << text::field(result, "heap") << " (" << text::field(result, "name")
            << ")\n";
  return kExitOk;
}

int run_cache(CommandContext& ctx) {
  const std::string what = ctx.args().positionals.at(0);
  if (what != "list" && what != "clear")
    throw ClientError{kExitUsage, "cache expects list or clear, got '" + what + "'"};
  const json::value result =
      ctx.rpc().call_or_throw(what == "list" ? "cacheList" : "cacheClear", json::object{});
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  print_doc(ctx.term(),
            what == "clear" ? text::cache_clear_text(result) : text::cache_list_text(result));
  return kExitOk;
}

namespace {

constexpr std::chrono::seconds kStopWait{60};  // freeing many GiB of heaps takes a while

// True once `pid` has exited (a zombie counts: it holds nothing any more).
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

bool wait_process_gone(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!process_gone(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace

int run_stop(CommandContext& ctx) {
  RpcClient* rpc = ctx.rpc_if_running();
  if (!rpc) {
    // Stopping what is not running is not a failure: the goal is reached.
    if (ctx.json()) {
      print_json(std::cout, nullptr);
    } else {
      std::cout << "no heapleakd is running on "
                << ctx.daemon_options().socket.value_or(default_socket_path()) << "\n";
    }
    return kExitOk;
  }
  const pid_t pid = rpc->server_pid();
  const json::value result = rpc->call_or_throw("stopDaemon", nullptr);
  rpc->close();
  // Returns once the old daemon is gone (its socket with it), so the next
  // command starts a new one instead of reaching one that is shutting down.
  if (pid > 0 && !wait_process_gone(pid, kStopWait)) {
    throw ClientError{kExitDaemonError, "heapleakd (pid " + std::to_string(pid) +
                                            ") was asked to stop but is still running after " +
                                            std::to_string(kStopWait.count()) + " s"};
  }
  if (ctx.json()) {
    print_json(std::cout, result);
  } else {
    std::cout << "heapleakd stopped\n";
  }
  return kExitOk;
}

}  // namespace heapleak::client
