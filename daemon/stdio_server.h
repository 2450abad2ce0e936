// heapleakd --stdio: one client on stdin/stdout (what editors spawn). A
// thread waits for SIGTERM/SIGINT with sigwait, so no work happens in a
// signal handler; a signal or stopDaemon ends the read loop and the process
// exits 0, while the client's own `exit` keeps LSP's exit code. A signal,
// or the client going away (nobody reads stdout any more), also closes the
// connection, which cancels its running work (a load) instead of waiting.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "daemon/served_session.h"
#include "protocol/binder.h"
#include "protocol/logger.h"
#include "protocol/session.h"

namespace heapleak::daemon {

class Connection;

// sigwait needs SIGTERM/SIGINT blocked in every thread: call this before
// any thread (the worker pools included) starts.
void block_stop_signals();

class StdioServer {
 public:
  StdioServer(std::shared_ptr<const protocol::Binder> binder,
              protocol::SessionOptions session_options, std::shared_ptr<protocol::Logger> logger);
  // Any session on stdin/stdout: heapleakd --mcp serves MCP's (mcp_session.h).
  // `finish_work_at_eof` false: the end of stdin cancels what is running
  // (MCP: a client closes stdin to shut the server down) instead of
  // answering what was read first (--stdio, whose scripts pipe requests in).
  StdioServer(SessionFactory sessions, std::shared_ptr<protocol::Logger> logger,
              bool finish_work_at_eof = true);

  // Serves until the input ends, `exit`, stop() or a signal; returns the
  // process exit code.
  int run();
  // Thread-safe; the read loop ends within a fifth of a second.
  void stop() { state_->stop_requested = true; }

 private:
  // Shared with the detached signal thread, which may outlive the server:
  // the stop flag, and the connection while it runs, for the signal to close.
  struct State {
    std::atomic<bool> stop_requested{false};
    std::mutex mutex;
    daemon::Connection* connection = nullptr;
  };

  SessionFactory sessions_;
  std::shared_ptr<protocol::Logger> logger_;
  bool finish_work_at_eof_ = true;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace heapleak::daemon
