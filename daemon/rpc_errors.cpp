#include "daemon/rpc_errors.h"

namespace heapleak::daemon {

protocol::RpcError to_rpc_error(const Error& error) {
  if (error.reason == ErrorReason::kCancelled) return protocol::cancelled_error();
  return protocol::domain_error(reason_name(error.reason), error.message);
}

}  // namespace heapleak::daemon
