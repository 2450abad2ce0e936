// The JSON-RPC error object and the way handlers produce one: throw
// RpcException (or answer Reply::error). Domain failures
// (-32803) carry `data: {reason, ...}` so clients map reasons to exit codes.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "protocol/error_codes.h"

namespace heapleak::protocol {

struct RpcError {
  int code = kInternalError;
  std::string message;
  std::optional<boost::json::value> data;
};

// -32803 with data {reason, ...extra}; reason is camelCase ("fileNotFound").
RpcError domain_error(std::string_view reason, std::string message, boost::json::object extra = {});
RpcError invalid_params(std::string message);
RpcError internal_error(std::string message);
RpcError cancelled_error();

// {"code":..., "message":..., "data"?: ...}
boost::json::object to_json(const RpcError& error);

// Thrown by a handler to answer with a specific error instead of -32603.
class RpcException : public std::runtime_error {
 public:
  explicit RpcException(RpcError error)
      : std::runtime_error(error.message), error_(std::move(error)) {}
  const RpcError& error() const { return error_; }

 private:
  RpcError error_;
};

}  // namespace heapleak::protocol
