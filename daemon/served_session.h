// What a Connection serves: a session fed the bytes the transport reads, which
// writes whole frames through the sink it was built with. heapleakd's
// JSON-RPC session (protocol::Session: LSP framing and lifecycle) and MCP's
// (daemon/mcp/mcp_session.h) are the two; a SessionFactory builds one per
// connection, so both share the read loop, the writer queue and its limits.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/binder.h"
#include "protocol/session.h"

namespace heapleak::daemon {

class ServedSession {
 public:
  // Gets one complete frame per call, never concurrently (protocol::Outbox).
  using Sink = std::function<void(std::string frame)>;

  virtual ~ServedSession() = default;
  // Input thread only: bytes as read, split anywhere.
  virtual void feed(std::string_view bytes) = 0;
  // Input thread only: the peer closed its end.
  virtual void finish_input() = 0;
  // Cancels in-flight work; the sink is never called again once it returns.
  virtual void close() = 0;
  virtual std::size_t in_flight() const = 0;
  // The process exit code the peer asked for, once it did (LSP `exit`).
  virtual std::optional<int> exit_code() const = 0;
};

// `on_exit`: the peer asked to end the connection; the connection stops
// reading after the current message.
using SessionFactory = std::function<std::unique_ptr<ServedSession>(ServedSession::Sink sink,
                                                                    std::function<void()> on_exit)>;

// heapleakd's JSON-RPC sessions over the method table.
SessionFactory json_rpc_sessions(std::shared_ptr<const protocol::Binder> binder,
                                 protocol::SessionOptions options);

}  // namespace heapleak::daemon
