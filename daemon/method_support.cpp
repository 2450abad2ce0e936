#include "daemon/method_support.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "daemon/analysis_admission.h"
#include "daemon/path_heaps.h"
#include "daemon/streamed_dumps.h"
#include "engine/load_plan.h"

namespace heapleak::daemon {
namespace fs = std::filesystem;

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

HeapEntry require_heap_with_references(DaemonContext& ctx, const std::string& heap,
                                       const protocol::RequestContext& request) {
  // Loaded identity-only (a diff's A or C): its file read again, with references.
  return with_references(ctx, require_heap(ctx, heap, request), request);
}

namespace {
std::uint64_t file_size_or_zero(const std::string& path) {
  std::error_code error;
  const auto size = fs::file_size(path, error);
  return error ? 0 : size;
}
}  // namespace

DiffHeaps require_diff_heaps(DaemonContext& ctx, const StatsParams& params,
                             const protocol::RequestContext& request,
                             const std::function<void(const HeapEntry&)>& after_target) {
  std::vector<std::string> names = params.heaps;
  if (names.empty()) {
    names = {params.baseline, params.target};
    if (params.later) names.push_back(*params.later);
  }
  // The plan of explain and check (engine/load_plan.h): B with references,
  // first; A and C identity-only beside it. Heaps named by id are used as
  // they are, unless B lacks references: then its file is read again
  // (while it is unchanged).
  engine::LoadPlan plan = engine::plan_leak_loads(names);
  // The others named by path that no heap of the store serves: read
  // against B once it is loaded (daemon/streamed_dumps.h), not loaded.
  std::vector<std::string> streams(names.size());
  if (plan.target) {
    const std::string& target = names[*plan.target];
    std::string target_path;
    if (names_a_path(target)) {
      target_path = fs::path(target).lexically_normal().string();
    } else if (const auto entry = ctx.store.find(target)) {
      target_path = entry->path;
    }
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (k == *plan.target || !names_a_path(names[k])) continue;
      const std::string path = fs::path(names[k]).lexically_normal().string();
      if (streams_against_target(ctx, path, target_path)) streams[k] = path;
    }
  }
  std::vector<std::optional<HeapEntry>> named(names.size());
  engine::LoadPlan reads;
  reads.at_once = plan.at_once;
  std::vector<std::size_t> read_of(names.size(), SIZE_MAX);
  for (std::size_t k = 0; k < names.size(); ++k) {
    engine::DumpLoad load = plan.loads[k];
    if (!streams[k].empty()) {
      named[k] =
          HeapEntry{streams[k], fs::path(streams[k]).filename().string(), streams[k], nullptr};
      continue;
    }
    if (!names_a_path(names[k])) {
      HeapEntry entry = require_heap(ctx.store, names[k]);
      if (load.mode == LoadMode::kFull) entry = with_references(ctx, entry, request);
      named[k] = std::move(entry);
      continue;
    }
    read_of[k] = reads.loads.size();
    reads.loads.push_back(std::move(load));
  }
  for (std::size_t k : plan.order)
    if (read_of[k] != SIZE_MAX) reads.order.push_back(read_of[k]);
  if (plan.target && read_of[*plan.target] != SIZE_MAX) reads.target = read_of[*plan.target];
  // One progress for the whole request: the loads first, then the streams,
  // each its share of the bytes (B's load reads more per byte, but bytes
  // are what the user sees go by).
  std::uint64_t load_bytes = 0, stream_bytes = 0;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (!streams[k].empty())
      stream_bytes += file_size_or_zero(streams[k]);
    else if (read_of[k] != SIZE_MAX)
      load_bytes += file_size_or_zero(names[k]);
  }
  const unsigned loads_share =
      stream_bytes == 0 ? 100
                        : static_cast<unsigned>(load_bytes * 100 / (load_bytes + stream_bytes));
  protocol::RequestContext loads_request = request;
  loads_request.progress = request.progress.part(0, loads_share);
  std::vector<HeapEntry> loaded;
  if (!reads.loads.empty()) loaded = heaps_for_plan(ctx, reads, loads_request, after_target);
  std::vector<HeapEntry> entries;
  for (std::size_t k = 0; k < names.size(); ++k)
    entries.push_back(named[k] ? *named[k] : loaded[read_of[k]]);
  // B loaded already (named by id, or current): its analyses now.
  if (plan.target && named[*plan.target] && after_target) after_target(entries[*plan.target]);

  DiffHeaps heaps;
  if (std::any_of(streams.begin(), streams.end(), [](const auto& path) { return !path.empty(); })) {
    protocol::RequestContext streams_request = request;
    streams_request.progress = request.progress.part(loads_share, 100);
    heaps.streamed = stream_against(ctx, entries[*plan.target], streams, streams_request);
  }
  const DiffRoles roles = diff_roles(entries.size());
  heaps.baseline = entries[roles.baseline];
  heaps.target = entries[roles.target];
  if (roles.later) heaps.later = entries[*roles.later];
  if (!params.heaps.empty()) heaps.series = std::move(entries);
  return heaps;
}

DiffHeaps require_analysed_diff_heaps(DaemonContext& ctx, const StatsParams& params,
                                      const protocol::RequestContext& request) {
  const auto analyse = [&ctx](const HeapEntry& target) {
    const AnalysisAdmission admitted(ctx, target, kDominatorsAnalysis | kRootPathsAnalysis);
    engine::analyse_target(*target.heap);
  };
  DiffHeaps heaps = require_diff_heaps(ctx, params, request, analyse);
  if (!heaps.target.heap->has_edges()) {
    throw protocol::RpcException(
        protocol::domain_error("invalidArgument", "heap loaded without references"));
  }
  return heaps;
}

engine::ReadWithReferences reread_diff_heap(DaemonContext& ctx, const DiffHeaps& heaps,
                                            const protocol::RequestContext& request) {
  return [&ctx, &heaps, &request](std::size_t k) -> std::shared_ptr<const Heap> {
    const HeapEntry* entry = heaps.series.size() > 3 ? &heaps.series.at(k)
                             : k == 0                ? &heaps.baseline
                             : k == 1                ? &heaps.target
                             : heaps.later           ? &*heaps.later
                                                     : nullptr;
    if (!entry) return nullptr;
    if (k < heaps.streamed.size() && heaps.streamed[k]) {
      return load_streamed(ctx, entry->path, heaps.streamed[k]->report().identity, request,
                           LoadMode::kFull);
    }
    return with_references(ctx, *entry, request).heap;
  };
}

engine::DiffSet diff_set(const DiffHeaps& heaps) {
  std::vector<const Heap*> dumps;
  if (heaps.series.size() > 3) {
    for (const auto& entry : heaps.series) dumps.push_back(entry.heap.get());
  } else {
    dumps = {heaps.baseline.heap.get(), heaps.target.heap.get()};
    if (heaps.later) dumps.push_back(heaps.later->heap.get());
  }
  std::vector<std::shared_ptr<const OtherDump>> streamed = heaps.streamed;
  streamed.resize(dumps.size());
  return engine::DiffSet(std::move(dumps), std::move(streamed));
}

std::vector<std::string> diff_paths(const DiffHeaps& heaps) {
  // A series names every dump (its baseline, target and later among them).
  std::vector<std::string> paths;
  for (const auto& entry : heaps.series) paths.push_back(entry.path);
  if (paths.size() <= 3) {
    paths = {heaps.baseline.path, heaps.target.path};
    if (heaps.later) paths.push_back(heaps.later->path);
  }
  return paths;
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
