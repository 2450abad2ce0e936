// Reaching heapleakd: the socket path (--socket, else the daemon's default),
// the heapleakd binary (next to this client, $HEAPLEAKD, $PATH), auto-start
// of a resident daemon in its own session, and --spawn's private stdio one.
// Returns a connected Transport or throws ClientError(kExitUnreachable).
#pragma once

#include <optional>
#include <string>

#include "clients/client/transport.h"
#include "protocol/socket_path.h"

namespace heapleak::client {

struct DaemonOptions {
  std::optional<std::string> socket;  // --socket PATH
  bool spawn = false;                 // --spawn: private heapleakd --stdio
  unsigned idle_timeout = 600;        // --idle-timeout for an auto-started daemon
  bool may_start = true;              // false: only connect (stop)
  bool announce = true;               // say on stderr when a daemon was started
};

// $XDG_RUNTIME_DIR/heapleak/heapleakd.sock or /tmp/heapleak-UID/heapleakd.sock:
// the daemon's own definition (protocol/socket_path.h), not a copy.
using protocol::default_socket_path;

// The heapleakd to run, or nullopt; `searched` lists where we looked.
std::optional<std::string> find_heapleakd(std::string& searched);

// A connected transport. With may_start false and nobody listening, returns nullopt.
std::optional<Transport> reach_daemon(const DaemonOptions& options);

}  // namespace heapleak::client
