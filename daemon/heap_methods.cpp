// loadHeap, unloadHeap, listHeaps, stopDaemon: the heap store's methods;
// cacheList and cacheClear: the cache of parsed heaps behind loadHeap.
#include <fcntl.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>

#include "core/images/cached_load.h"
#include "core/loading/loader.h"
#include "core/reading/byte_source.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/method_table.h"
#include "daemon/path_heaps.h"
#include "daemon/wire_params.h"
#include "protocol/method_names.h"
#include "results/cache_json.h"
#include "results/heap_list_json.h"

namespace heapleak::daemon {
using namespace results;
namespace json = boost::json;
using protocol::RequestContext;
namespace methods = protocol::methods;

namespace {

results::NamedHeap named(const HeapEntry& entry) {
  return {entry.id, entry.name, entry.path, entry.heap.get(), entry.beside};
}

// Hands the allocator's free memory back to the system once no load runs.
// glibc keeps what a thread freed in that thread's arena: after 8 clients
// loaded and unloaded at once, the idle daemon held ~300 MB (27-45 MB after
// one). malloc_trim returns the free pages of every arena; run after an
// unload and at the end of a load (its scratch), it costs milliseconds.
void give_back_memory(const HeapStore& store) {
  if (store.loading_names().empty()) ::malloc_trim(0);
}

// Admission on the input thread: the file exists, the budget admits its
// estimate, and the name is taken now, not when the load ends, so a query
// naming it waits for the load instead of answering unknownHeap. The
// returned job reads the dump on the load pool.
LoadJob run_load_heap(DaemonContext& ctx, const LoadHeapParams& params,
                      const RequestContext& request) {
  const std::string path = std::filesystem::absolute(params.path).lexically_normal().string();
  const AdmittedLoad load =
      admit_load(ctx, path, params.name.value_or(std::filesystem::path(path).filename().string()));
  return [&ctx, rc = request, load](const protocol::Reply& reply) {
    std::atomic<bool> cancel{false};
    std::stop_callback on_cancel(rc.stop, [&cancel] { cancel.store(true); });
    rc.progress.begin("Loading " + std::filesystem::path(load.path).filename().string());
    auto progress = [&rc](std::uint64_t done, std::uint64_t total) {
      auto mib = [](std::uint64_t bytes) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / (1 << 20));
        return std::string(text);
      };
      rc.progress.report(total == 0 ? 100 : static_cast<unsigned>(done * 100 / total),
                         mib(done) + " of " + mib(total) + " MiB");
    };
    AdmittedHeap read;
    try {
      read = read_admitted(ctx, load, cancel, progress);
    } catch (...) {
      rc.progress.end();
      give_back_memory(ctx.store);  // a failed or cancelled load's scratch
      throw;
    }
    rc.progress.end();
    // Answered before the queries that waited for this load resume.
    ctx.store.finish_load(
        load.name, load.path, std::move(read.heap), read.reserved, [&](const HeapEntry& entry) {
          ctx.logger->info("loaded " + entry.id + " (" + entry.name +
                           "): " + std::to_string(entry.heap->size()) + " objects in " +
                           std::to_string(entry.heap->report().seconds) + " s");
          reply.result(loaded_heap_json(named(entry)));
        });
    give_back_memory(ctx.store);  // the load's scratch, freed as it ended
    // The image is written after the answer, by the image writer; a daemon
    // started later reopens the dump from it.
    if (read.image) write_image_later(ctx, std::move(*read.image));
  };
}

json::value run_unload_heap(DaemonContext& ctx, const HeapParams& params, const RequestContext&) {
  std::optional<HeapEntry> entry;
  try {
    entry = require_heap(ctx.store, params.heap);
  } catch (const HeapStillLoading& loading) {
    // Unloading does not wait for a load (docs/protocol.md): answer at once.
    throw protocol::RpcException(loading.error());
  }
  ctx.store.remove(entry->id);
  json::value answer = unloaded_heap_json(named(*entry));
  entry.reset();  // the heap's last reference, unless a query still holds it
  give_back_memory(ctx.store);
  return answer;
}

json::value run_list_heaps(DaemonContext& ctx, const protocol::NoParams&, const RequestContext&) {
  std::vector<results::NamedHeap> heaps;
  const auto entries = ctx.store.list();  // keeps the heaps alive while we read them
  for (const auto& entry : entries) heaps.push_back(named(entry));
  return heap_list_json(heaps, ctx.store.loading_names(), ctx.store.used_bytes(),
                        ctx.store.max_bytes());
}

json::value run_cache_list(DaemonContext& ctx, const protocol::NoParams&, const RequestContext&) {
  return cache_list_json(ctx.cache, ctx.cache.list());
}

json::value run_cache_clear(DaemonContext& ctx, const protocol::NoParams&, const RequestContext&) {
  return cache_clear_json(ctx.cache, ctx.cache.clear());
}

// Replies before stopping, so the client sees its answer.
ReplyThen run_stop_daemon(DaemonContext& ctx, const protocol::NoParams&, const RequestContext&) {
  ctx.logger->info("stopDaemon requested");
  return ReplyThen{nullptr, ctx.request_stop};
}

}  // namespace

void register_heap_methods(MethodTable& table) {
  table.add(methods::kLoadHeap, Runs::kOnLoadPool, run_load_heap);
  table.add(methods::kUnloadHeap, Runs::kInline, run_unload_heap);
  table.add(methods::kListHeaps, Runs::kInline, run_list_heaps);
  table.add(methods::kStopDaemon, Runs::kInline, run_stop_daemon);
  table.add(methods::kCacheList, Runs::kOnQueryPool, run_cache_list);
  table.add(methods::kCacheClear, Runs::kOnQueryPool, run_cache_clear);
}

}  // namespace heapleak::daemon
