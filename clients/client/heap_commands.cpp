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
#include "clients/client/table.h"
#include "results/text/render.h"
#include "results/text/terminal_safe.h"

namespace heapleak::client {
namespace json = boost::json;

int run_load(CommandContext& ctx) {
  const std::string path = absolute_path(ctx.args().positionals.at(0));
  const json::value result = load_with_progress(ctx, path, ctx.args().value("--name"));
  if (ctx.json()) {
    print_json(std::cout, result);
    return kExitOk;
  }
  const Terminal& term = ctx.term();
  print_fields(std::cout, term,
               {{"heap", str(result, "heap")},
                {"name", str(result, "name")},
                {"path", str(result, "path")},
                {"objects", grouped(num(result, "objects"))},
                {"memory", human_bytes(static_cast<double>(num(result, "residentBytes")))},
                {"loaded in", std::to_string(real(result, "loadSeconds")).substr(0, 5) + " s"},
                {"traced", flag(result, "traced") ? "yes (allocation sites known)" : "no"}});
  // A dump cut short loads with a `truncated` warning: show every warning.
  if (const json::value* warnings = result.as_object().if_contains("warnings");
      warnings && warnings->is_array()) {
    for (const auto& warning : warnings->as_array()) {
      if (warning.is_string())
        std::cerr << "heapleak-client: warning: " << text::shown(warning.as_string()) << "\n";
    }
  }
  if (const std::uint64_t broken = num(result, "brokenLines"); broken > 0) {
    std::cerr << "heapleak-client: warning: skipped " << grouped(broken) << " unreadable lines of "
              << text::field(result, "path") << "\n";
  }
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
