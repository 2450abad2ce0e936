// heapleakd: the resident daemon. Parses options, builds the heap store, the
// worker pools and the method table, then serves stdio (stdio_server.h) or
// sockets (socket_server.h), or MCP on stdio (--mcp: mcp_session.h, its tools
// on the same method table). Flags and wiring only.
#include <signal.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <iostream>

#include "daemon/daemon_context.h"
#include "daemon/daemon_options.h"
#include "daemon/mcp/mcp_session.h"
#include "daemon/mcp/mcp_tools.h"
#include "daemon/method_table.h"
#include "daemon/socket_server.h"
#include "daemon/stdio_server.h"
#include "protocol/logger.h"
#include "results/product/version.h"

namespace {

using namespace heapleak;
using namespace heapleak::daemon;

boost::json::object capabilities(const protocol::Binder& binder, const DaemonOptions& options) {
  boost::json::array methods;
  for (const auto& name : binder.request_methods()) methods.emplace_back(name);
  // Who is answering: lets a client confirm a stop or find the daemon's log.
  boost::json::object daemon{{"pid", ::getpid()}};
  if (options.mode == DaemonOptions::Mode::kUnix) daemon["socket"] = options.socket_path;
  if (options.idle_timeout_seconds != 0)
    daemon["idleTimeoutSeconds"] = options.idle_timeout_seconds;
  return boost::json::object{{"methods", std::move(methods)},
                             {"daemon", std::move(daemon)},
                             {"framing", boost::json::array{"content-length", "ndjson"}},
                             {"workDoneProgress", true},
                             {"cancelRequest", true}};
}

}  // namespace

int main(int argc, char** argv) {
  std::string message;
  int exit_code = 0;
  auto options = parse_daemon_options(argc, argv, message, exit_code);
  if (!options) {
    (exit_code == 0 ? std::cout : std::cerr) << message;
    return exit_code;
  }
  ::signal(SIGPIPE, SIG_IGN);
  // Before any thread starts (the worker pools below included).
  const bool on_stdio =
      options->mode == DaemonOptions::Mode::kStdio || options->mode == DaemonOptions::Mode::kMcp;
  if (on_stdio) block_stop_signals();
  auto logger =
      std::make_shared<protocol::StderrLogger>(*protocol::parse_log_level(options->log_level));

  HeapStore store(options->max_memory);
  // Declared before the pools so it outlives them: they finish the image
  // and analyses writes still queued when the daemon stops.
  const HeapCache cache(CacheOptions{options->cache, options->cache_dir, options->cache_max_bytes});
  // Declared before `loads` so it is destroyed after it: a load that ends
  // while the daemon stops still posts the queries that waited for it.
  WorkerPool queries(options->sync ? 0 : 2);
  WorkerPool loads(options->sync ? 0 : 2);
  std::function<void()> request_stop = [] {};
  DaemonContext context{store, loads, queries, logger, [&] { request_stop(); }, cache};
  // With --sync, each image is written before the next request (tests read it).
  context.images = std::make_shared<engine::ImageWriter>(options->sync);
  auto binder = std::make_shared<protocol::Binder>();
  register_all_methods(*binder, context);

  protocol::SessionOptions session;
  session.server_version = kVersion;
  session.capabilities = capabilities(*binder, *options);
  session.logger = logger;

  if (options->mode == DaemonOptions::Mode::kMcp) {
    McpOptions mcp;
    mcp.server_version = session.server_version;
    mcp.logger = logger;
    // Closing stdin cancels running work (docs/mcp.md), a load included.
    StdioServer server(mcp_sessions(std::make_shared<McpTools>(binder, logger), mcp), logger,
                       /*finish_work_at_eof=*/false);
    request_stop = [&server] { server.stop(); };
    return server.run();
  }
  if (options->mode == DaemonOptions::Mode::kStdio) {
    StdioServer server(binder, session, logger);
    request_stop = [&server] { server.stop(); };
    return server.run();
  }

  SocketServer server(*options, binder, session, logger);
  request_stop = [&server] { server.stop(); };
  return server.run();
}
