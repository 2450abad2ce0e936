#include "daemon/path_heaps.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <new>
#include <set>
#include <stop_token>
#include <thread>

#include "core/base/file_identity.h"
#include "core/base/memory_headroom.h"
#include "core/loading/load_memory_guard.h"
#include "core/loading/loader.h"
#include "core/reading/byte_source.h"
#include "daemon/files_progress.h"
#include "daemon/rpc_errors.h"

namespace heapleak::daemon {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

thread_local PathLoadNotes* current_notes = nullptr;

[[noreturn]] void throw_stat_error(const std::string& path, int error, const std::string& more) {
  const auto reason = error == ENOENT ? ErrorReason::kFileNotFound : ErrorReason::kNotReadable;
  throw protocol::RpcException(
      to_rpc_error(make_error(reason, path + ": " + std::strerror(error) + more)));
}

}  // namespace

void note_path_load(const char* kind, json::object note) {
  if (!current_notes) return;
  (std::strcmp(kind, "reloaded") == 0   ? current_notes->reloaded_
   : std::strcmp(kind, "streamed") == 0 ? current_notes->streamed_
                                        : current_notes->loaded_)
      .push_back(std::move(note));
}

std::string what_changed(const FileIdentity& loaded, const FileIdentity& now) {
  if (loaded.device != now.device || loaded.inode != now.inode) return "replaced by another file";
  if (loaded.size != now.size) {
    return "size " + std::to_string(loaded.size) + " -> " + std::to_string(now.size) + " bytes";
  }
  if (loaded.mtime_ns != now.mtime_ns) return "modified since";
  return "changed since";
}

void note_streamed(const std::string& name, const std::string& path, const std::string& why) {
  json::object note{{"name", name}, {"path", path}};
  if (!why.empty()) note["why"] = why;
  note_path_load("streamed", std::move(note));
}

PathLoadNotes::PathLoadNotes() : outer_(current_notes) { current_notes = this; }
PathLoadNotes::~PathLoadNotes() { current_notes = outer_; }

void PathLoadNotes::annotate(json::value& result) const {
  if (!result.is_object()) return;
  if (!loaded_.empty()) result.as_object()["loaded"] = loaded_;
  if (!reloaded_.empty()) result.as_object()["reloaded"] = reloaded_;
  if (!streamed_.empty()) result.as_object()["streamed"] = streamed_;
}

void require_regular_file(const std::string& path) {
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
}

AdmittedLoad admit_load(DaemonContext& ctx, const std::string& path,
                        const std::string& wanted_name) {
  require_regular_file(path);
  const std::uint64_t estimate = engine::load_peak_estimate(path);
  std::string refusal;
  if (!ctx.store.admit(estimate, refusal)) {
    throw protocol::RpcException(protocol::domain_error("overBudget", refusal, {{"path", path}}));
  }
  return AdmittedLoad{path, ctx.store.begin_load(wanted_name), estimate};
}

AdmittedHeap read_admitted(DaemonContext& ctx, const AdmittedLoad& load,
                           const std::atomic<bool>& cancel,
                           const std::function<void(std::uint64_t, std::uint64_t)>& progress,
                           LoadMode mode) {
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
  if (ctx.store.max_bytes() == 0) guard.emplace(load.path, mode).watch(control);
  // Out of memory fails this load only: the daemon and its other heaps stay.
  Result<std::shared_ptr<const Heap>> heap =
      make_error(ErrorReason::kOverBudget, load.path + ": out of memory while loading");
  try {
    // A load that runs alone reads a large dump in two halves at once;
    // loads side by side (Load Heaps sends them together) keep a core each.
    LoadOptions options;
    options.mode = mode;
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

namespace {

// The paths some request is reading: a request naming one waits for that
// read instead of reading the dump twice (then finds it current).
struct PathsInFlight {
  std::mutex mutex;
  std::condition_variable done;
  std::set<std::string> paths;
};

PathsInFlight& in_flight() {
  static PathsInFlight paths;
  return paths;
}

// One dump a request names: its heap when current, else a load admitted
// (its id taken) to read.
struct PathLoad {
  std::string path;
  LoadMode mode = LoadMode::kFull;
  std::optional<HeapEntry> current;
  std::optional<AdmittedLoad> admitted;
  bool reading = false;               // read_admitted now owns the admission
  std::optional<HeapEntry> replaced;  // the heap this load replaces
  std::string why;                    // why it is replaced
  std::optional<HeapEntry> stored;    // once read
  std::exception_ptr failure;
};

// A heap answers a request wanting `mode` when it has what the mode keeps.
bool serves(const HeapEntry& entry, LoadMode mode) {
  return mode == LoadMode::kIdentityOnly || entry.heap->has_edges();
}

void prepare_one(DaemonContext& ctx, PathLoad& load) {
  FileIdentity now;
  const bool exists = file_identity(load.path, now);
  const int stat_error = errno;
  std::optional<HeapEntry> old = ctx.store.find_by_path(load.path);
  const bool same_file = old && exists && old->heap->report().identity == now;
  if (same_file && serves(*old, load.mode)) {
    load.current = old;
    return;
  }
  if (!exists) {
    throw_stat_error(
        load.path, stat_error,
        old ? " (it was loaded as " + old->id + "; name that id to ask the heap as it was then)"
            : std::string());
  }
  if (old) {
    // Stale (a new dump to the same path), or loaded identity-only and now
    // needed with references. The old heap goes first, so its name and
    // memory are free for the new one.
    if (same_file) {
      load.why = "loaded without references, which this request needs";
      ctx.logger->info(load.path + ": " + old->id + " was " + load.why + ": reloading it");
    } else {
      load.why = what_changed(old->heap->report().identity, now);
      // Logged at the level warnings are: an answer from a different file
      // than the last one's is worth a line in any log.
      ctx.logger->error(load.path + " changed since " + old->id + " was loaded (" + load.why +
                        "): reloading it");
    }
    ctx.store.remove(old->id);
    load.replaced = old;
  }
  load.admitted =
      admit_load(ctx, load.path, old ? old->name : fs::path(load.path).filename().string());
}

// Finds the current heaps of `loads` and admits the others, in order, their
// paths then marked in flight. While another request reads one of them it
// waits, holding nothing (so two requests never wait on each other). On an
// error, what was admitted is given back and the error thrown.
void prepare(DaemonContext& ctx, std::vector<PathLoad>& loads) {
  PathsInFlight& flight = in_flight();
  std::unique_lock lock(flight.mutex);
  flight.done.wait(lock, [&] {
    return std::none_of(loads.begin(), loads.end(),
                        [&](const PathLoad& load) { return flight.paths.contains(load.path); });
  });
  std::size_t k = 0;
  try {
    for (; k < loads.size(); ++k) prepare_one(ctx, loads[k]);
  } catch (...) {
    for (std::size_t j = 0; j < k; ++j) {
      if (loads[j].admitted)
        ctx.store.abandon_load(loads[j].admitted->name, loads[j].admitted->estimate);
    }
    throw;
  }
  for (const PathLoad& load : loads)
    if (load.admitted) flight.paths.insert(load.path);
}

// Ends what prepare began: the paths no longer in flight, and the admission
// of a load never read given back.
class PreparedLoads {
 public:
  PreparedLoads(DaemonContext& ctx, std::vector<PathLoad>& loads) : ctx_(ctx), loads_(loads) {
    prepare(ctx, loads);
  }
  ~PreparedLoads() {
    PathsInFlight& flight = in_flight();
    {
      std::lock_guard lock(flight.mutex);
      for (PathLoad& load : loads_) {
        if (!load.admitted) continue;
        if (!load.reading) ctx_.store.abandon_load(load.admitted->name, load.admitted->estimate);
        flight.paths.erase(load.path);
      }
    }
    flight.done.notify_all();
  }
  PreparedLoads(const PreparedLoads&) = delete;
  PreparedLoads& operator=(const PreparedLoads&) = delete;

 private:
  DaemonContext& ctx_;
  std::vector<PathLoad>& loads_;
};

void read_one(DaemonContext& ctx, PathLoad& load, const std::atomic<bool>& cancel,
              const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  if (cancel.load()) return;  // cancelled, or another load failed: never started
  load.reading = true;        // read_admitted ends the admission, either way
  try {
    AdmittedHeap read = read_admitted(ctx, *load.admitted, cancel, progress, load.mode);
    HeapEntry stored;
    ctx.store.finish_load(load.admitted->name, load.path, read.heap, read.reserved,
                          [&stored](const HeapEntry& entry) { stored = entry; });
    if (read.image) write_image_later(ctx, std::move(*read.image));
    load.stored = std::move(stored);
  } catch (...) {
    load.failure = std::current_exception();
  }
}

// The notes a request's result carries, in the paths' order.
void note_loads(DaemonContext& ctx, const std::vector<PathLoad>& loads) {
  for (const PathLoad& load : loads) {
    if (!load.stored) continue;
    const HeapEntry& stored = *load.stored;
    json::object note{{"heap", stored.id}, {"name", stored.name}, {"path", load.path}};
    if (load.replaced) {
      note["replaced"] = load.replaced->id;
      note["why"] = load.why;
      note_path_load("reloaded", std::move(note));
      ctx.logger->info("reloaded " + load.path + " as " + stored.id);
    } else {
      note_path_load("loaded", std::move(note));
      ctx.logger->info("loaded " + stored.id + " (" + stored.name + ") from " + load.path +
                       " on first use");
    }
  }
}

}  // namespace

std::vector<HeapEntry> heaps_for_plan(DaemonContext& ctx, const engine::LoadPlan& plan,
                                      const protocol::RequestContext& request,
                                      const std::function<void(const HeapEntry&)>& after_target) {
  // One load per file, with references when any use of it needs them.
  std::vector<PathLoad> loads;
  std::vector<std::size_t> slot;
  for (const engine::DumpLoad& wanted : plan.loads) {
    const std::string path = fs::path(wanted.path).lexically_normal().string();
    auto same = std::find_if(loads.begin(), loads.end(),
                             [&](const PathLoad& load) { return load.path == path; });
    if (same == loads.end()) {
      slot.push_back(loads.size());
      PathLoad load;
      load.path = path;
      load.mode = wanted.mode;
      loads.push_back(std::move(load));
    } else {
      slot.push_back(static_cast<std::size_t>(same - loads.begin()));
      if (wanted.mode == LoadMode::kFull) same->mode = LoadMode::kFull;
    }
  }
  std::exception_ptr first_failure;
  {
    const PreparedLoads prepared(ctx, loads);
    // What to read, in the plan's order (the target first).
    std::vector<PathLoad*> reads;
    for (std::size_t k : plan.order) {
      PathLoad* load = &loads[slot[k]];
      if (load->admitted && std::find(reads.begin(), reads.end(), load) == reads.end())
        reads.push_back(load);
    }
    std::optional<std::size_t> target;
    if (plan.target) target = slot[*plan.target];
    if (!reads.empty()) {
      std::atomic<bool> cancel{false};
      std::stop_callback on_cancel(request.stop, [&cancel] { cancel.store(true); });
      std::vector<std::string> paths;
      for (const PathLoad* load : reads) paths.push_back(load->path);
      FilesProgress progress(request.progress, "Loading " + file_names(paths), reads.size());
      std::mutex failed_mutex;
      const auto read = [&](std::size_t r) {
        read_one(ctx, *reads[r], cancel, progress.slot(r));
        if (!reads[r]->failure) return;
        cancel.store(true);  // the others stop too
        std::lock_guard lock(failed_mutex);
        if (!first_failure) first_failure = reads[r]->failure;  // the cause, not a cancel it made
      };
      // The target's load is the one the answer waits on: it goes first, on
      // this thread, then its analyses, while the others load beside it at a
      // lower priority, as many at once as the plan says and memory holds.
      const bool target_first = target && reads.front() == &loads[*target];
      const bool target_ready = target && !target_first && after_target;  // loaded already
      const std::size_t first_other = target_first ? 1 : 0;
      std::vector<std::uint64_t> estimates;
      for (std::size_t r = first_other; r < reads.size(); ++r)
        estimates.push_back(reads[r]->admitted->estimate);
      std::size_t helpers = 0;
      if (!estimates.empty()) {
        helpers = loads_that_fit(estimates, memory_headroom_bytes(),
                                 std::max<std::size_t>(plan.at_once - first_other, 1));
        if (!target_first && !target_ready) --helpers;  // this thread reads too
      }
      std::atomic<std::size_t> next{first_other};
      const auto others = [&](bool lower) {
        if (lower) engine::lower_this_threads_priority();
        for (std::size_t r; (r = next++) < reads.size();) read(r);
      };
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t < helpers; ++t) threads.emplace_back(others, target_first);
      if (target_first) read(0);
      if (target && after_target && !cancel.load()) {
        const PathLoad& b = loads[*target];
        if (const std::optional<HeapEntry> entry = b.stored ? b.stored : b.current) {
          try {
            after_target(*entry);
          } catch (...) {
            // Left for the method: it computes the same again and reports the error.
          }
        }
      }
      if (!target_first && !target_ready) others(false);
      for (auto& thread : threads) thread.join();
    }
  }
  if (first_failure) std::rethrow_exception(first_failure);
  for (const PathLoad& load : loads)
    if (load.admitted && !load.stored) throw protocol::RpcException(protocol::cancelled_error());
  note_loads(ctx, loads);
  std::vector<HeapEntry> entries;
  for (std::size_t k = 0; k < plan.loads.size(); ++k) {
    const PathLoad& load = loads[slot[k]];
    entries.push_back(load.stored ? *load.stored : *load.current);
  }
  return entries;
}

HeapEntry with_references(DaemonContext& ctx, const HeapEntry& entry,
                          const protocol::RequestContext& request) {
  if (entry.heap->has_edges()) return entry;
  FileIdentity now;
  if (entry.path.empty() || !file_identity(entry.path, now) ||
      !(entry.heap->report().identity == now)) {
    // A heap named by id is a snapshot: never read again from another file.
    throw protocol::RpcException(protocol::domain_error(
        "invalidArgument",
        "heap " + entry.id + " was loaded identity-only (a diff's A or C keeps no references)" +
            (entry.path.empty() ? std::string() : " and " + entry.path + " changed since") +
            ": loadHeap the dump again to ask this"));
  }
  return heap_for_path(ctx, entry.path, request, LoadMode::kFull);
}

HeapEntry heap_for_path(DaemonContext& ctx, const std::string& path,
                        const protocol::RequestContext& request, LoadMode mode) {
  engine::LoadPlan plan;
  plan.loads = {{path, mode}};
  plan.order = {0};
  plan.at_once = 1;
  return heaps_for_plan(ctx, plan, request, nullptr).front();
}

}  // namespace heapleak::daemon
