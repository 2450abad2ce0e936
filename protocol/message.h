// JSON-RPC 2.0 messages: parse one payload into requests, notifications,
// responses or invalid entries (batch or single), validating the envelope
// only (jsonrpc "2.0", id type, method string, params structured). Also builds
// outgoing response and notification objects. Knows no method names.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/error.h"

namespace heapleak::protocol {

struct Request {
  boost::json::value id;  // number or string, echoed exactly (null is allowed too)
  std::string method;
  boost::json::value params;  // object, array, or null when absent
};

struct Notification {
  std::string method;
  boost::json::value params;
};

// A response from the peer (we send no requests today, so these are logged).
struct Response {
  boost::json::value id;
  boost::json::value result;
  std::optional<RpcError> error;
};

// An entry that failed validation: answer `error` to `id` (null if unknown).
struct InvalidMessage {
  boost::json::value id;
  RpcError error;
};

using Message = std::variant<Request, Notification, Response, InvalidMessage>;

struct ParsedPayload {
  bool batch = false;  // answer with an array (only non-empty arrays are batches)
  std::vector<Message> messages;
};

// Never throws. Not JSON -> one InvalidMessage -32700; `[]` or a scalar ->
// one InvalidMessage -32600 (not a batch).
ParsedPayload parse_payload(std::string_view payload);

// Validates one batch entry or top-level object.
Message parse_message(const boost::json::value& value);

boost::json::object make_result(const boost::json::value& id, boost::json::value result);
boost::json::object make_error(const boost::json::value& id, const RpcError& error);
boost::json::object make_notification(std::string_view method, boost::json::value params);

// An id for log lines: 3, "abc", null.
std::string describe_id(const boost::json::value& id);

}  // namespace heapleak::protocol
