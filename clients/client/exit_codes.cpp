#include "clients/client/exit_codes.h"

#include "protocol/error_codes.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

struct ReasonCode {
  std::string_view reason;
  int code;
};

constexpr ReasonCode kReasons[] = {
    {"noAnswer", kExitNoAnswer},
    {"fileNotFound", kExitFileNotFound},
    {"unknownAddress", kExitUnknownAddress},
    {"notReadable", kExitNotReadable},
    {"notAHeapDump", kExitNotAHeapDump},
    {"corruptInput", kExitCorruptInput},
    {"unknownHeap", kExitUnknownHeap},
    {"overBudget", kExitOverBudget},
    {"invalidArgument", kExitInvalidArgument},
    {"cancelled", kExitCancelled},
};

std::string_view reason_of(const json::object& error) {
  const json::value* data = error.if_contains("data");
  if (!data || !data->is_object()) return {};
  const json::value* reason = data->as_object().if_contains("reason");
  return reason && reason->is_string() ? std::string_view(reason->as_string()) : std::string_view();
}

}  // namespace

int exit_code_for_reason(std::string_view reason) {
  for (const auto& entry : kReasons) {
    if (entry.reason == reason) return entry.code;
  }
  return kExitDaemonError;
}

int exit_code_for_error(const json::object& error) {
  const json::value* code = error.if_contains("code");
  const std::int64_t number = code && code->is_int64() ? code->as_int64() : 0;
  if (number == protocol::kRequestCancelled) return kExitCancelled;
  if (number == protocol::kInvalidParams) return kExitInvalidArgument;
  if (number == protocol::kDomainError) return exit_code_for_reason(reason_of(error));
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

std::string exit_code_table() {
  return R"(exit codes:
    0  ok
    1  no answer (noAnswer: no common retainer, no path from a root)
    2  usage error (bad command line, rpc input that is not JSON-RPC)
    3  file not found (fileNotFound)
    4  unknown address (unknownAddress)
    5  file not readable (notReadable)
    6  not a heap dump (notAHeapDump)
    7  corrupt input (corruptInput)
    8  unknown heap (unknownHeap)
    9  over the daemon's memory budget (overBudget)
   10  invalid argument (invalidArgument, or the daemon refused the params: -32602)
   11  Graphviz `dot` is not installed (--format svg|png)
   12  other daemon error, malformed reply, or an output file that cannot be written
   13  cannot reach heapleakd (not found, failed to start, connection lost)
  130  cancelled with Ctrl-C (the daemon answered -32800)
)";
}

}  // namespace heapleak::client
