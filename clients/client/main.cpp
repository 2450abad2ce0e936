// heapleak-client: the shell client of heapleakd. Talks only the JSON-RPC
// protocol (protocol/ for framing); never links core/ or daemon/.
#include <signal.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "clients/client/client_args.h"
#include "clients/client/command_context.h"
#include "clients/client/commands.h"
#include "clients/client/exit_codes.h"
#include "clients/client/usage.h"
#include "results/product/version.h"
#include "results/text/terminal_safe.h"

namespace {

using namespace heapleak;
using namespace heapleak::client;

using Runner = int (*)(CommandContext&);

Runner runner_for(const std::string& command) {
  static const std::pair<const char*, Runner> table[] = {
      {"load", run_load},
      {"list", run_list},
      {"unload", run_unload},
      {"stop", run_stop},
      {"cache", run_cache},
      {"stats", run_stats},
      {"root", run_root},
      {"path", run_path},
      {"explain", run_explain},
      {"report", run_report},
      {"owner", run_owner},
      {"top", run_top},
      {"retained", run_retained},
      {"inspect", run_inspect},
      {"referrers", run_referrers},
      {"references", run_references},
      {"rpc", run_rpc},
      {"tree", run_tree},
  };
  for (const auto& [name, run] : table) {
    if (command == name) return run;
  }
  return nullptr;
}

int report(const ClientError& error) {
  if (!error.message.empty())
    std::cerr << "heapleak-client: " << heapleak::text::shown(error.message) << "\n";
  if (error.code == kExitUsage) std::cerr << "(see heapleak-client --help)\n";
  return error.code;
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  if (argc == 2 && std::string(argv[1]) == "--version") {
    std::cout << "heapleak-client " << heapleak::kVersion << "\n";
    return kExitOk;
  }
  try {
    Args args = parse_args(std::vector<std::string>(argv + 1, argv + argc));
    if (args.command == "help") {
      const std::string page = args.positionals.empty() ? "" : command_usage(args.positionals[0]);
      std::cout << (page.empty() ? overview_usage() : page);
      return kExitOk;
    }
    if (args.command.empty()) {
      if (args.help) {
        std::cout << overview_usage();
        return kExitOk;
      }
      std::cerr << overview_usage();
      return kExitUsage;
    }
    if (args.help) {
      std::cout << command_usage(args.command);
      return kExitOk;
    }
    CommandContext context(std::move(args), Terminal::detect());
    const int code = runner_for(context.args().command)(context);
    // A full disk or a closed pipe on stdout is a failure, as in heapleak.
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "heapleak-client: cannot write the output: " << std::strerror(errno) << "\n";
      return kExitCannotWrite;
    }
    return code;
  } catch (const ClientError& error) {
    return report(error);
  } catch (const std::exception& error) {
    std::cerr << "heapleak-client: unexpected reply from heapleakd: " << error.what() << "\n";
    return kExitDaemonError;
  }
}
