// heapleakd --listen: accepts clients on a unix socket (0600, never
// clobbering a live daemon's socket) or a loopback TCP port (each client
// must present the token), one Connection and thread per client, all sharing
// one heap store. Stops on SIGTERM/SIGINT, stopDaemon, or the idle timeout.
#pragma once

#include <memory>
#include <string>

#include "daemon/daemon_options.h"
#include "protocol/binder.h"
#include "protocol/logger.h"
#include "protocol/session.h"

namespace heapleak::daemon {

class SocketServer {
 public:
  SocketServer(DaemonOptions options, std::shared_ptr<const protocol::Binder> binder,
               protocol::SessionOptions session_options, std::shared_ptr<protocol::Logger> logger);
  ~SocketServer();

  // Listens and serves until stopped; returns the process exit code.
  int run();
  // Thread-safe; returns at once.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heapleak::daemon
