#include "daemon/method_support.h"

namespace heapleak::daemon {

protocol::RpcError to_rpc_error(const Error& error) {
  if (error.reason == ErrorReason::kCancelled) return protocol::cancelled_error();
  return protocol::domain_error(reason_name(error.reason), error.message);
}

HeapStillLoading::HeapStillLoading(std::string name)
    : protocol::RpcException(protocol::domain_error(
          "unknownHeap",
          "heap '" + name + "' is still loading; ask again when loadHeap has answered",
          {{"heap", name}, {"loading", true}})),
      name_(std::move(name)) {}

HeapEntry require_heap(const HeapStore& store, const std::string& id_or_name) {
  bool still_loading = false;
  auto entry = store.find(id_or_name, &still_loading);
  if (still_loading) throw HeapStillLoading(id_or_name);
  if (!entry) {
    throw protocol::RpcException(protocol::domain_error(
        "unknownHeap",
        "no heap '" + id_or_name + "' is loaded (it may have been unloaded); see listHeaps",
        {{"heap", id_or_name}}));
  }
  return *entry;
}

DiffHeaps require_diff_heaps(const HeapStore& store, const StatsParams& params) {
  DiffHeaps heaps{require_heap(store, params.baseline), require_heap(store, params.target), {}};
  if (params.later) heaps.later = require_heap(store, *params.later);
  return heaps;
}

LeakDiffOptions require_diff_options(const StatsParams& params) {
  auto group_by = parse_group_by(params.group_by);
  if (!group_by) {
    throw protocol::RpcException(
        protocol::invalid_params("params.groupBy: expected class, site or generation"));
  }
  LeakDiffOptions options;
  options.group_by = *group_by;
  options.samples_per_group = params.samples;
  return options;
}

ObjectIndex require_object(const Heap& heap, const std::string& text) {
  auto address = parse_address(text);
  if (!address) {
    // Bad params, like root's addresses: -32602 naming the field.
    throw protocol::RpcException(protocol::invalid_params(
        "params.address: '" + text + "' is not an address (expected 0x followed by hex digits)"));
  }
  auto index = heap.find(*address);
  if (!index) {
    throw protocol::RpcException(protocol::domain_error(
        "unknownAddress", text + " is not in " + heap.report().path, {{"address", text}}));
  }
  return *index;
}

std::size_t limit_or_all(std::size_t limit) { return limit == 0 ? SIZE_MAX : limit; }

std::vector<Address> parse_address_list(const std::vector<std::string>& texts) {
  std::vector<Address> addresses;
  for (std::size_t k = 0; k < texts.size(); ++k) {
    auto address = parse_address(texts[k]);
    if (!address) {
      throw protocol::RpcException(protocol::invalid_params(
          "params.addresses[" + std::to_string(k) + "]: '" + texts[k] + "' is not an address"));
    }
    addresses.push_back(*address);
  }
  if (addresses.empty()) {
    throw protocol::RpcException(
        protocol::invalid_params("params.addresses: needs at least one address"));
  }
  return addresses;
}

}  // namespace heapleak::daemon
