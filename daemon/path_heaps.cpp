#include "daemon/path_heaps.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <stop_token>

#include "core/base/file_identity.h"
#include "core/loading/load_memory_guard.h"
#include "core/loading/loader.h"
#include "core/reading/byte_source.h"
#include "daemon/method_support.h"

namespace heapleak::daemon {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

thread_local PathLoadNotes* current_notes = nullptr;

// By magic bytes, as the loader decides, not by the file's name. This may run
// on a connection's reading thread: the caller has checked that the path is a
// regular file, and the open is non-blocking in case it was swapped for a
// FIFO since, so the connection never waits on a writer.
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

[[noreturn]] void throw_stat_error(const std::string& path, int error, const std::string& more) {
  const auto reason = error == ENOENT ? ErrorReason::kFileNotFound : ErrorReason::kNotReadable;
  throw protocol::RpcException(
      to_rpc_error(make_error(reason, path + ": " + std::strerror(error) + more)));
}

// What differs between the file as loaded and as it is now, for people.
std::string what_changed(const FileIdentity& loaded, const FileIdentity& now) {
  if (loaded.device != now.device || loaded.inode != now.inode) return "replaced by another file";
  if (loaded.size != now.size) {
    return "size " + std::to_string(loaded.size) + " -> " + std::to_string(now.size) + " bytes";
  }
  if (loaded.mtime_ns != now.mtime_ns) return "modified since";
  return "changed since";
}

}  // namespace

void note_path_load(const char* kind, json::object note) {
  if (!current_notes) return;
  (std::strcmp(kind, "reloaded") == 0 ? current_notes->reloaded_ : current_notes->loaded_)
      .push_back(std::move(note));
}

PathLoadNotes::PathLoadNotes() : outer_(current_notes) { current_notes = this; }
PathLoadNotes::~PathLoadNotes() { current_notes = outer_; }

void PathLoadNotes::annotate(json::value& result) const {
  if (!result.is_object()) return;
  if (!loaded_.empty()) result.as_object()["loaded"] = loaded_;
  if (!reloaded_.empty()) result.as_object()["reloaded"] = reloaded_;
}

AdmittedLoad admit_load(DaemonContext& ctx, const std::string& path,
                        const std::string& wanted_name) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw_stat_error(path, errno, "");
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
  return AdmittedLoad{path, ctx.store.begin_load(wanted_name), estimate};
}

AdmittedHeap read_admitted(DaemonContext& ctx, const AdmittedLoad& load,
                           const std::atomic<bool>& cancel,
                           const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  // The reservation grows with the load: a dump that inflates far more
  // than the admission estimate fails with overBudget as it passes it.
  AdmittedHeap out;
  out.reserved = load.estimate;
  LoadControl control;
  control.cancel = &cancel;
  control.charge = [&ctx, &out](std::uint64_t bytes) {
    return ctx.store.extend(out.reserved, bytes);
  };
  control.progress = progress;
  // Without --max-memory the memory left is the budget: a load that cannot
  // fit stops with overBudget instead of the kernel killing the daemon and
  // every heap it holds.
  std::optional<LoadMemoryGuard> guard;
  if (ctx.store.max_bytes() == 0) guard.emplace(load.path, LoadMode::kFull).watch(control);
  // Out of memory fails this load only: the daemon and its other heaps stay.
  Result<std::shared_ptr<const Heap>> heap =
      make_error(ErrorReason::kOverBudget, load.path + ": out of memory while loading");
  try {
    // A load that runs alone reads a large dump in two halves at once;
    // loads side by side (Load Heaps sends them together) keep a core each.
    LoadOptions options;
    if (ctx.store.loading_names().size() == 1) options.split_from_bytes = kSplitWhenAloneFrom;
    CachedLoad loaded = load_heap_cached(&ctx.cache, load.path, options, control);
    heap = std::move(loaded.heap);
    out.image = std::move(loaded.pending);
    if (loaded.warning) ctx.logger->error(*loaded.warning);
  } catch (const std::bad_alloc&) {
  }
  if (!heap && guard && !guard->reason().empty())
    heap = make_error(ErrorReason::kOverBudget,
                      guard->reason() + "; unload a heap or free memory first");
  if (!heap || cancel.load()) {
    // A cancelled load leaves nothing behind: the heap (if any) dies here.
    ctx.store.abandon_load(load.name, out.reserved);
    throw protocol::RpcException(heap ? protocol::cancelled_error() : to_rpc_error(heap.error()));
  }
  out.heap = std::move(*heap);
  return out;
}

bool names_a_path(const std::string& heap) { return !heap.empty() && heap[0] == '/'; }

HeapEntry heap_for_path(DaemonContext& ctx, const std::string& raw,
                        const protocol::RequestContext& request) {
  const std::string path = fs::path(raw).lexically_normal().string();
  // The common case costs one stat: the file is the one loaded.
  FileIdentity now;
  const bool exists = file_identity(path, now);
  const int stat_error = errno;
  auto current = [&]() -> std::optional<HeapEntry> {
    auto entry = ctx.store.find_by_path(path);
    if (entry && exists && entry->heap->report().identity == now) return entry;
    return std::nullopt;
  };
  if (auto entry = current()) return *entry;
  if (!exists) {
    auto old = ctx.store.find_by_path(path);
    throw_stat_error(
        path, stat_error,
        old ? " (it was loaded as " + old->id + "; name that id to ask the heap as it was then)"
            : std::string());
  }
  // One load from a path at a time: two requests naming the same new dump
  // load it once (the second finds it current here).
  static std::mutex serial;
  std::lock_guard lock(serial);
  if (auto entry = current()) return *entry;
  std::optional<HeapEntry> old = ctx.store.find_by_path(path);
  std::string why;
  if (old) {
    // Stale: the file was rewritten (a new dump to the same path). The old
    // heap goes first, so its name and memory are free for the new one.
    why = what_changed(old->heap->report().identity, now);
    // Logged at the level warnings are: an answer from a different file
    // than the last one's is worth a line in any log.
    ctx.logger->error(path + " changed since " + old->id + " was loaded (" + why +
                      "): reloading it");
    ctx.store.remove(old->id);
  }
  const AdmittedLoad load =
      admit_load(ctx, path, old ? old->name : fs::path(path).filename().string());
  std::atomic<bool> cancel{false};
  std::stop_callback on_cancel(request.stop, [&cancel] { cancel.store(true); });
  request.progress.begin("Loading " + fs::path(path).filename().string());
  AdmittedHeap read;
  try {
    read = read_admitted(ctx, load, cancel, [&request](std::uint64_t done, std::uint64_t total) {
      request.progress.report(total == 0 ? 100 : static_cast<unsigned>(done * 100 / total), "");
    });
  } catch (...) {
    request.progress.end();
    throw;
  }
  request.progress.end();
  HeapEntry stored;
  ctx.store.finish_load(load.name, path, read.heap, read.reserved,
                        [&stored](const HeapEntry& entry) { stored = entry; });
  if (read.image) {
    ctx.loads.post([&ctx, image = std::move(*read.image)] {
      if (auto warning = image.write()) ctx.logger->error(*warning);
    });
  }
  json::object note{{"heap", stored.id}, {"name", stored.name}, {"path", path}};
  if (old) {
    note["replaced"] = old->id;
    note["why"] = why;
    note_path_load("reloaded", std::move(note));
    ctx.logger->info("reloaded " + path + " as " + stored.id);
  } else {
    note_path_load("loaded", std::move(note));
    ctx.logger->info("loaded " + stored.id + " (" + stored.name + ") from " + path +
                     " on first use");
  }
  return stored;
}

}  // namespace heapleak::daemon
