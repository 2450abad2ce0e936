#include "daemon/method_support.h"

namespace heapleak::daemon {

protocol::RpcError to_rpc_error(const Error& error) {
  if (error.reason == ErrorReason::kCancelled) return protocol::cancelled_error();
  return protocol::domain_error(reason_name(error.reason), error.message);
}

HeapEntry require_heap(const HeapStore& store, const std::string& id_or_name) {
  auto entry = store.find(id_or_name);
  if (!entry) {
    throw protocol::RpcException(protocol::domain_error(
        "unknownHeap", "no heap '" + id_or_name + "' is loaded (it may have been unloaded); see listHeaps",
        {{"heap", id_or_name}}));
  }
  return *entry;
}

ObjectIndex require_object(const Heap& heap, const std::string& text) {
  auto address = parse_address(text);
  if (!address) {
    throw protocol::RpcException(protocol::domain_error(
        "invalidArgument", "'" + text + "' is not an address (expected 0x followed by hex digits)",
        {{"address", text}}));
  }
  auto index = heap.find(*address);
  if (!index) {
    throw protocol::RpcException(protocol::domain_error(
        "unknownAddress", text + " is not in " + heap.report().path, {{"address", text}}));
  }
  return *index;
}

}  // namespace heapleak::daemon
