// heapleakd: the resident daemon. Parses options, builds the heap store, the
// worker pools and the method table, then serves stdio or sockets.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "daemon/connection.h"
#include "daemon/daemon_context.h"
#include "daemon/daemon_options.h"
#include "daemon/socket_server.h"
#include "protocol/logger.h"

namespace {

using namespace heapleak;
using namespace heapleak::daemon;

// Set by stopDaemon and by SIGTERM/SIGINT: the stdio read loop ends and the
// process exits 0. The connection's own shutdown (stop reading at its end)
// sets only g_stop_reading, so a plain EOF keeps LSP's exit code.
std::atomic<bool> g_stop_requested{false};
std::atomic<bool> g_stop_reading{false};
// The stdio connection while it runs: a signal closes it, which cancels its
// running work (a load) instead of waiting for it, as socket mode does.
std::mutex g_stdio_mutex;
Connection* g_stdio_connection = nullptr;

// stdin/stdout: reads poll so a stop request (stopDaemon, a signal) ends the
// read loop within a fifth of a second even when the client is silent.
ByteStream stdio_stream() {
  return ByteStream{
      [](char* buffer, std::size_t size) -> long {
        for (;;) {
          if (g_stop_requested || g_stop_reading) return 0;
          pollfd fd{0, POLLIN, 0};
          const int ready = ::poll(&fd, 1, 200);
          if (ready < 0 && errno != EINTR) return -1;
          if (ready <= 0) continue;
          const ssize_t n = ::read(0, buffer, size);
          if (n >= 0 || errno != EINTR) return static_cast<long>(n);
        }
      },
      [](const char* data, std::size_t size) {
        while (size > 0) {
          const ssize_t n = ::write(1, data, size);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) return false;
          data += n;
          size -= static_cast<std::size_t>(n);
        }
        return true;
      },
      [] { g_stop_reading = true; },
      [] { g_stop_reading = true; },
  };
}

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
  // With --stdio a thread waits for SIGTERM/SIGINT with sigwait: every thread
  // (the worker pools below included) must have them blocked, so block them
  // before any thread starts.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  if (options->mode == DaemonOptions::Mode::kStdio)
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto logger =
      std::make_shared<protocol::StderrLogger>(*protocol::parse_log_level(options->log_level));

  HeapStore store(options->max_memory);
  // Declared before `loads` so it is destroyed after it: a load that ends
  // while the daemon stops still posts the queries that waited for it.
  WorkerPool queries(options->sync ? 0 : 2);
  WorkerPool loads(options->sync ? 0 : 2);
  std::function<void()> request_stop = [] {};
  DaemonContext context{store, loads, queries, logger, [&] { request_stop(); }};
  auto binder = std::make_shared<protocol::Binder>();
  register_heap_methods(*binder, context);
  register_analysis_methods(*binder, context);
  register_browse_methods(*binder, context);
  register_ownership_methods(*binder, context);

  protocol::SessionOptions session;
  session.server_version = "0.1.0";
  session.capabilities = capabilities(*binder, *options);
  session.logger = logger;

  if (options->mode == DaemonOptions::Mode::kStdio) {
    // Signals stop the read loop like stopDaemon does; a thread waits for them
    // so no work happens in a signal handler.
    std::thread([stop_signals, logger] {
      int signal = 0;
      if (sigwait(&stop_signals, &signal) == 0) {
        logger->info(std::string("stopping on ") + (signal == SIGTERM ? "SIGTERM" : "SIGINT"));
        g_stop_requested = true;
        std::lock_guard lock(g_stdio_mutex);
        if (g_stdio_connection) g_stdio_connection->close();
      }
    }).detach();
    request_stop = [] { g_stop_requested = true; };
    int code;
    {
      Connection connection(binder, session, stdio_stream(), /*finish_work_at_eof=*/true);
      {
        std::lock_guard lock(g_stdio_mutex);
        g_stdio_connection = &connection;
      }
      code = connection.run();
      std::lock_guard lock(g_stdio_mutex);
      g_stdio_connection = nullptr;
    }
    return g_stop_requested ? 0 : code;
  }

  SocketServer server(*options, binder, session, logger);
  request_stop = [&server] { server.stop(); };
  return server.run();
}
