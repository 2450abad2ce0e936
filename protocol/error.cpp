#include "protocol/error.h"

namespace heapleak::protocol {

RpcError domain_error(std::string_view reason, std::string message, boost::json::object extra) {
  boost::json::object data = std::move(extra);
  data["reason"] = reason;
  return RpcError{kDomainError, std::move(message), boost::json::value(std::move(data))};
}

RpcError invalid_params(std::string message) {
  return RpcError{kInvalidParams, std::move(message), std::nullopt};
}

RpcError internal_error(std::string message) {
  return RpcError{kInternalError, std::move(message), std::nullopt};
}

RpcError cancelled_error() {
  return RpcError{kRequestCancelled, "request cancelled", std::nullopt};
}

boost::json::object to_json(const RpcError& error) {
  boost::json::object object;
  object["code"] = error.code;
  object["message"] = error.message;
  if (error.data) object["data"] = *error.data;
  return object;
}

}  // namespace heapleak::protocol
