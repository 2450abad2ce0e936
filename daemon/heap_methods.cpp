// loadHeap, unloadHeap, listHeaps, stopDaemon: the heap store's methods.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>

#include "core/byte_source.h"
#include "core/loader.h"
#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/results_json.h"
#include "daemon/wire_params.h"

namespace heapleak::daemon {
namespace json = boost::json;
using protocol::RequestContext;
using protocol::TypedReply;

namespace {

json::object entry_json(const HeapEntry& entry) {
  json::object out = heap_summary_json(*entry.heap);
  out["heap"] = entry.id;
  out["name"] = entry.name;
  out["path"] = entry.path;
  return out;
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

void load(DaemonContext& ctx, LoadHeapParams params, RequestContext rc,
          TypedReply<json::value> reply) {
  const std::string path = std::filesystem::absolute(params.path).lexically_normal().string();
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const auto reason = errno == ENOENT ? ErrorReason::kFileNotFound : ErrorReason::kNotReadable;
    reply.error(to_rpc_error(make_error(reason, path + ": " + std::strerror(errno))));
    return;
  }
  if (!S_ISREG(info.st_mode)) {
    // A FIFO, device or directory: refused here, before anything opens it.
    reply.error(to_rpc_error(
        make_error(ErrorReason::kNotReadable,
                   path + (S_ISDIR(info.st_mode) ? ": is a directory, not a heap dump file"
                                                 : ": is not a regular file (a FIFO, device or "
                                                   "socket), not a heap dump file"))));
    return;
  }
  const std::uint64_t estimate =
      HeapStore::estimate_load_bytes(static_cast<std::uint64_t>(info.st_size), file_is_gzip(path));
  std::string refusal;
  if (!ctx.store.admit(estimate, refusal)) {
    reply.error(protocol::domain_error("overBudget", refusal, {{"path", path}}));
    return;
  }
  // The name is taken now, not when the load ends: a query naming it waits
  // for the load instead of answering unknownHeap.
  const std::string name =
      ctx.store.begin_load(params.name.value_or(std::filesystem::path(path).filename().string()));
  ctx.loads.post([&ctx, rc, reply, path, name, estimate] {
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
    try {
      heap = load_heap(path, {}, control);
    } catch (const std::bad_alloc&) {
    }
    rc.progress.end();
    if (!heap || rc.cancelled()) {
      // A cancelled load leaves nothing behind: the heap (if any) dies here.
      ctx.store.abandon_load(name, reserved);
      if (!heap) {
        reply.error(to_rpc_error(heap.error()));
      } else {
        reply.cancelled();
      }
      return;
    }
    ctx.store.finish_load(name, path, std::move(*heap), reserved, [&](const HeapEntry& entry) {
      ctx.logger->info("loaded " + entry.id + " (" + entry.name +
                       "): " + std::to_string(entry.heap->size()) + " objects in " +
                       std::to_string(entry.heap->report().seconds) + " s");
      reply(json::value(entry_json(entry)));
    });
  });
}

}  // namespace

void register_heap_methods(protocol::Binder& binder, DaemonContext& ctx) {
  binder.add_async<LoadHeapParams, json::value>(
      "loadHeap", [&ctx](LoadHeapParams params, RequestContext rc, TypedReply<json::value> reply) {
        load(ctx, std::move(params), std::move(rc), std::move(reply));
      });

  binder.add<HeapParams>("unloadHeap", [&ctx](const HeapParams& params, const RequestContext&) {
    const HeapEntry entry = require_heap(ctx.store, params.heap);
    ctx.store.remove(entry.id);
    return json::value(json::object{{"heap", entry.id}, {"name", entry.name}, {"unloaded", true}});
  });

  binder.add<protocol::NoParams>(
      "listHeaps", [&ctx](const protocol::NoParams&, const RequestContext&) {
        json::array heaps;
        for (const auto& entry : ctx.store.list()) {
          heaps.push_back(json::object{{"heap", entry.id},
                                       {"name", entry.name},
                                       {"path", entry.path},
                                       {"objects", entry.heap->size()},
                                       {"residentBytes", entry.heap->bytes_used()},
                                       {"loadSeconds", entry.heap->report().seconds},
                                       {"traced", entry.heap->report().traced}});
        }
        json::array loading;
        for (const auto& name : ctx.store.loading_names()) loading.push_back(json::value(name));
        return json::value(json::object{{"heaps", std::move(heaps)},
                                        {"loading", std::move(loading)},
                                        {"usedBytes", ctx.store.used_bytes()},
                                        {"maxBytes", ctx.store.max_bytes()}});
      });

  // Replies before stopping, so the client sees its answer.
  binder.add_raw("stopDaemon",
                 [&ctx](const json::value&, const RequestContext&, protocol::Reply reply) {
                   ctx.logger->info("stopDaemon requested");
                   reply.result(nullptr);
                   ctx.request_stop();
                 });
}

}  // namespace heapleak::daemon
