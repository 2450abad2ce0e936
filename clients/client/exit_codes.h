// How heapleak-client ends: a JSON-RPC error reply to its exit code (the
// table both CLIs share, results/product/exit_codes.h, by the daemon's
// data.reason), and the ClientError a command throws to end the run.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "results/product/exit_codes.h"

namespace heapleak::client {

// The exit code for a JSON-RPC error object {code, message, data?: {reason}}.
int exit_code_for_error(const boost::json::object& error);

// Thrown by commands to end the run with `code`, printing `message` (if any)
// on stderr as "heapleak-client: message".
struct ClientError {
  int code;
  std::string message;
};

// A ClientError for an error reply: its message, its reason in brackets.
ClientError error_from_reply(const boost::json::object& error);

}  // namespace heapleak::client
