// Small helpers shared by the method families: core errors to wire errors,
// heap and address lookups that answer -32803 with a reason.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/heap.h"
#include "daemon/heap_store.h"
#include "protocol/error.h"

namespace heapleak::daemon {

protocol::RpcError to_rpc_error(const Error& error);

// Throw protocol::RpcException: -32803 unknownHeap / unknownAddress, -32602
// for an address that is not hex.
HeapEntry require_heap(const HeapStore& store, const std::string& id_or_name);
ObjectIndex require_object(const Heap& heap, const std::string& address);
// params.addresses: every entry must be hex (-32602 naming its index), and
// there must be at least one.
std::vector<Address> parse_address_list(const std::vector<std::string>& texts);

}  // namespace heapleak::daemon
