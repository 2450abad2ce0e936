// heapleakd --stdio: one client on stdin/stdout (what editors spawn). A
// thread waits for SIGTERM/SIGINT with sigwait, so no work happens in a
// signal handler; a signal or stopDaemon ends the read loop and the process
// exits 0, while the client's own `exit` keeps LSP's exit code.
#pragma once

#include <atomic>
#include <memory>

#include "protocol/binder.h"
#include "protocol/logger.h"
#include "protocol/session.h"

namespace heapleak::daemon {

// sigwait needs SIGTERM/SIGINT blocked in every thread: call this before
// any thread (the worker pools included) starts.
void block_stop_signals();

class StdioServer {
 public:
  StdioServer(std::shared_ptr<const protocol::Binder> binder,
              protocol::SessionOptions session_options, std::shared_ptr<protocol::Logger> logger);

  // Serves until the input ends, `exit`, stop() or a signal; returns the
  // process exit code.
  int run();
  // Thread-safe; the read loop ends within a fifth of a second.
  void stop() { *stop_requested_ = true; }

 private:
  std::shared_ptr<const protocol::Binder> binder_;
  protocol::SessionOptions session_options_;
  std::shared_ptr<protocol::Logger> logger_;
  // Shared with the detached signal thread, which may outlive the server.
  std::shared_ptr<std::atomic<bool>> stop_requested_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace heapleak::daemon
