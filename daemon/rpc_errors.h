// Core's errors as the wire's: a reason becomes -32803 with data.reason
// (fileNotFound, notAHeapDump, overBudget, ...), a cancelled run the
// protocol's cancelled error. Every method family and the path loads use it.
#pragma once

#include "core/base/error.h"
#include "protocol/error.h"

namespace heapleak::daemon {

protocol::RpcError to_rpc_error(const Error& error);

}  // namespace heapleak::daemon
