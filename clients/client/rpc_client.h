// A JSON-RPC 2.0 client over one Transport: Content-Length frames out, either
// framing in (protocol/frame_reader.h). One request at a time; notifications
// that arrive meanwhile go to a callback. Ctrl-C while waiting sends
// $/cancelRequest and keeps waiting for the -32800; a second Ctrl-C gives up.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "clients/client/transport.h"
#include "protocol/frame_reader.h"

namespace heapleak::client {

struct RpcReply {
  boost::json::value result;
  std::optional<boost::json::object> error;
};

using NotificationHandler =
    std::function<void(std::string_view method, const boost::json::value& params)>;

class RpcClient {
 public:
  explicit RpcClient(Transport transport) : transport_(std::move(transport)) {}

  // initialize + initialized. Throws ClientError (unreachable) on failure.
  void initialize();

  // Sends a request and waits for its reply. Throws ClientError: kExitUnreachable
  // when the connection drops, kExitCancelled on a second Ctrl-C.
  RpcReply call(std::string_view method, boost::json::value params,
                const NotificationHandler& on_notification = {});

  // call(), but an error reply throws the ClientError it maps to.
  boost::json::value call_or_throw(std::string_view method, boost::json::value params,
                                   const NotificationHandler& on_notification = {});

  // Low level, for `rpc`: send one serialized message (Content-Length framed).
  void send_payload(std::string_view payload);
  void notify(std::string_view method, boost::json::value params);

  enum class Wait { kMessage, kInterrupted, kTimedOut };
  // Waits for the next incoming message (timeout_ms < 0: forever). Throws
  // ClientError when the connection ends or the peer sends something unparsable.
  Wait receive(boost::json::value& message, int timeout_ms = -1);

  // Ends the connection (a spawned daemon sees EOF and exits).
  void close() { transport_.close(); }
  // The daemon's process id (its socket's peer, or the spawned child); -1 unknown.
  pid_t server_pid() const { return transport_.peer_pid(); }

 private:
  Transport transport_;
  protocol::FrameReader reader_;
  std::int64_t next_id_ = 1;
};

}  // namespace heapleak::client
