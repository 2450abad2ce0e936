#include "clients/client/exit_codes.h"

#include "protocol/error_codes.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

std::string_view reason_of(const json::object& error) {
  const json::value* data = error.if_contains("data");
  if (!data || !data->is_object()) return {};
  const json::value* reason = data->as_object().if_contains("reason");
  return reason && reason->is_string() ? std::string_view(reason->as_string()) : std::string_view();
}

}  // namespace

int exit_code_for_error(const json::object& error) {
  const json::value* code = error.if_contains("code");
  const std::int64_t number = code && code->is_int64() ? code->as_int64() : 0;
  if (number == protocol::kRequestCancelled) return kExitCancelled;
  if (number == protocol::kInvalidParams) return kExitInvalidArgument;
  if (number == protocol::kDomainError)
    return exit_code_for_reason(reason_of(error), kExitDaemonError);
  return kExitDaemonError;
}

ClientError error_from_reply(const json::object& error) {
  const json::value* message = error.if_contains("message");
  std::string text = message && message->is_string() ? std::string(message->as_string()) : "error";
  const int code = exit_code_for_error(error);
  if (code == kExitCancelled) return {code, "cancelled"};
  if (auto reason = reason_of(error); !reason.empty()) text += " (" + std::string(reason) + ")";
  return {code, text};
}

}  // namespace heapleak::client
