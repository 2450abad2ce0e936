#include "daemon/method_support.h"

#include <filesystem>

#include "daemon/path_heaps.h"
#include "results/dump_files.h"

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
  auto entry = names_a_path(id_or_name)
                   ? store.find_by_path(std::filesystem::path(id_or_name).lexically_normal())
                   : store.find(id_or_name, &still_loading);
  if (still_loading) throw HeapStillLoading(id_or_name);
  if (!entry) {
    throw protocol::RpcException(protocol::domain_error(
        "unknownHeap",
        "no heap '" + id_or_name + "' is loaded (it may have been unloaded); see listHeaps",
        {{"heap", id_or_name}}));
  }
  return *entry;
}

HeapEntry require_heap(DaemonContext& ctx, const std::string& heap,
                       const protocol::RequestContext& request) {
  if (names_a_path(heap)) return heap_for_path(ctx, heap, request);
  return require_heap(ctx.store, heap);
}

DiffHeaps require_diff_heaps(DaemonContext& ctx, const StatsParams& params,
                             const protocol::RequestContext& request) {
  if (!params.heaps.empty()) {
    DiffHeaps heaps;
    for (const auto& heap : params.heaps) heaps.series.push_back(require_heap(ctx, heap, request));
    const std::size_t n = heaps.series.size();
    heaps.baseline = heaps.series.front();
    heaps.target = heaps.series[n - 2];
    heaps.later = heaps.series.back();
    return heaps;
  }
  DiffHeaps heaps{require_heap(ctx, params.baseline, request),
                  require_heap(ctx, params.target, request),
                  {},
                  {}};
  if (params.later) heaps.later = require_heap(ctx, *params.later, request);
  return heaps;
}

boost::json::object diff_files(const DiffHeaps& heaps) {
  // A series names every dump (its baseline, target and later among them).
  std::vector<std::string> paths;
  for (const auto& entry : heaps.series) paths.push_back(entry.path);
  if (paths.size() <= 3) {
    paths = {heaps.baseline.path, heaps.target.path};
    if (heaps.later) paths.push_back(heaps.later->path);
  }
  return results::dump_files_json(paths);
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

boost::json::object series_json(const SeriesCheck& series) {
  boost::json::array findings;
  for (const SeriesFinding& finding : series.findings) {
    findings.push_back(boost::json::object{{"problem", series_problem_name(finding.problem)},
                                           {"first", finding.first},
                                           {"second", finding.second},
                                           {"message", finding.message},
                                           {"fromManifest", finding.from_manifest}});
  }
  return boost::json::object{{"oneSeries", !series.broken()}, {"findings", std::move(findings)}};
}

}  // namespace heapleak::daemon
