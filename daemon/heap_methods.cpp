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

#include "core/byte_source.h"
#include "core/cached_load.h"
#include "core/loader.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/method_table.h"
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
  return {entry.id, entry.name, entry.path, entry.heap.get()};
}

// Hands the allocator's free memory back to the system once no load runs.
// glibc keeps what a thread freed in that thread's arena: after 8 clients
// loaded and unloaded at once, the idle daemon held ~300 MB (27-45 MB after
// one). malloc_trim returns the free pages of every arena; run after an
// unload and at the end of a load (its scratch), it costs milliseconds.
void give_back_memory(const HeapStore& store) {
  if (store.loading_names().empty()) ::malloc_trim(0);
}

// By magic bytes, as the loader decides, not by the file's name. This runs
// on the connection's reading thread: the caller has checked that the path
// is a regular file, and the open is non-blocking in case it was swapped
// for a FIFO since, so the connection never waits on a writer.
bool file_is_gzip(const std::string& path) {
  unsigned char magic[2] = {0, 0};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat info {};
  ssize_t got = 0;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) got = ::pread(fd, magic, 2, 0);
  ::close(fd);
  return got == 2 && has_gzip_magic(magic, 2);
}

// Admission on the input thread: the file exists, the budget admits its
// estimate, and the name is taken now, not when the load ends, so a query
// naming it waits for the load instead of answering unknownHeap. The
// returned job reads the dump on the load pool.
LoadJob run_load_heap(DaemonContext& ctx, const LoadHeapParams& params,
                      const RequestContext& request) {
  const std::string path = std::filesystem::absolute(params.path).lexically_normal().string();
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const auto reason = errno == ENOENT ? ErrorReason::kFileNotFound : ErrorReason::kNotReadable;
    throw protocol::RpcException(
        to_rpc_error(make_error(reason, path + ": " + std::strerror(errno))));
  }
  if (!S_ISREG(info.st_mode)) {
    // A FIFO, device or directory: refused here, before anything opens it.
    throw protocol::RpcException(to_rpc_error(
        make_error(ErrorReason::kNotReadable,
                   path + (S_ISDIR(info.st_mode) ? ": is a directory, not a heap dump file"
                                                 : ": is not a regular file (a FIFO, device or "
                                                   "socket), not a heap dump file"))));
  }
  const std::uint64_t estimate =
      HeapStore::estimate_load_bytes(static_cast<std::uint64_t>(info.st_size), file_is_gzip(path));
  std::string refusal;
  if (!ctx.store.admit(estimate, refusal)) {
    throw protocol::RpcException(protocol::domain_error("overBudget", refusal, {{"path", path}}));
  }
  const std::string name =
      ctx.store.begin_load(params.name.value_or(std::filesystem::path(path).filename().string()));
  return [&ctx, rc = request, path, name, estimate](const protocol::Reply& reply) {
    std::atomic<bool> cancel{false};
    std::stop_callback on_cancel(rc.stop, [&cancel] { cancel.store(true); });
    rc.progress.begin("Loading " + std::filesystem::path(path).filename().string());
    // The reservation grows with the load: a dump that inflates far more
    // than the admission estimate fails with overBudget as it passes it.
    std::uint64_t reserved = estimate;
    LoadControl control;
    control.cancel = &cancel;
    control.charge = [&ctx, &reserved](std::uint64_t bytes) {
      return ctx.store.extend(reserved, bytes);
    };
    control.progress = [&rc](std::uint64_t done, std::uint64_t total) {
      auto mib = [](std::uint64_t bytes) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / (1 << 20));
        return std::string(text);
      };
      rc.progress.report(total == 0 ? 100 : static_cast<unsigned>(done * 100 / total),
                         mib(done) + " of " + mib(total) + " MiB");
    };
    // Out of memory fails this load only: the daemon and its other heaps stay.
    Result<std::shared_ptr<const Heap>> heap =
        make_error(ErrorReason::kOverBudget, path + ": out of memory while loading");
    std::optional<PendingImage> image;
    try {
      // A load that runs alone reads a large dump in two halves at once;
      // loads side by side (Load Heaps sends them together) keep a core each.
      LoadOptions options;
      if (ctx.store.loading_names().size() == 1) options.split_from_bytes = kSplitWhenAloneFrom;
      CachedLoad loaded = load_heap_cached(&ctx.cache, path, options, control);
      heap = std::move(loaded.heap);
      image = std::move(loaded.pending);
      if (loaded.warning) ctx.logger->error(*loaded.warning);
    } catch (const std::bad_alloc&) {
    }
    rc.progress.end();
    if (!heap || rc.cancelled()) {
      // A cancelled load leaves nothing behind: the heap (if any) dies here.
      ctx.store.abandon_load(name, reserved);
      protocol::RpcError error = heap ? protocol::cancelled_error() : to_rpc_error(heap.error());
      heap = make_error(ErrorReason::kOverBudget, "");  // frees the heap before the trim
      give_back_memory(ctx.store);
      throw protocol::RpcException(std::move(error));
    }
    // Answered before the queries that waited for this load resume.
    ctx.store.finish_load(name, path, std::move(*heap), reserved, [&](const HeapEntry& entry) {
      ctx.logger->info("loaded " + entry.id + " (" + entry.name +
                       "): " + std::to_string(entry.heap->size()) + " objects in " +
                       std::to_string(entry.heap->report().seconds) + " s");
      reply.result(loaded_heap_json(named(entry)));
    });
    give_back_memory(ctx.store);  // the load's scratch, freed as it ended
    // The image is written after the answer, on the load pool; a daemon
    // started later reopens the dump from it.
    if (image) {
      ctx.loads.post([&ctx, image = std::move(*image)] {
        if (auto warning = image.write()) ctx.logger->error(*warning);
      });
    }
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
