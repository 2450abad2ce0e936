// Heaps a request names by their dump's absolute path: the heap loaded from
// that file while the file is still the one loaded (one stat: its identity),
// else the file loaded now, by the request (first use) or again (a new dump
// rewrote it since, or the heap lacks the references the request needs).
// Several at once run as engine/load_plan.h plans them, on the request's
// threads. Also the admission and load loadHeap shares, and the notes of
// those loads that a request's result carries (`loaded`, `reloaded`).
#pragma once

#include <atomic>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/file_identity.h"
#include "core/images/cached_load.h"
#include "core/reading/load_mode.h"
#include "daemon/daemon_context.h"
#include "daemon/heap_store.h"
#include "engine/load_plan.h"
#include "protocol/binder.h"

namespace heapleak::daemon {

// A load that has passed admission: the file is a regular file, the budget
// took its estimate and the store reserved its name.
struct AdmittedLoad {
  std::string path;  // absolute, lexically normal
  std::string name;
  std::uint64_t estimate = 0;
};
// Throws protocol::RpcException fileNotFound, or notReadable for a FIFO,
// device, socket or directory: refused before anything opens it.
void require_regular_file(const std::string& path);

// Throws protocol::RpcException: fileNotFound, notReadable (not a regular
// file), overBudget.
AdmittedLoad admit_load(DaemonContext& ctx, const std::string& path,
                        const std::string& wanted_name);

// Reads an admitted load (through the cache); on failure or cancel the load is
// abandoned and the error thrown. On success the caller ends it with
// store.finish_load(name, path, heap, reserved, ...).
struct AdmittedHeap {
  std::shared_ptr<const Heap> heap;
  std::optional<PendingImage> image;  // to write after answering
  std::uint64_t reserved = 0;
};
AdmittedHeap read_admitted(DaemonContext& ctx, const AdmittedLoad& load,
                           const std::atomic<bool>& cancel,
                           const std::function<void(std::uint64_t, std::uint64_t)>& progress,
                           LoadMode mode = LoadMode::kFull);

// True when a request's heap param is a dump's path (it starts with '/'):
// ids and names never do.
bool names_a_path(const std::string& heap);

// The heap for `path`, current with the file (see above), with references
// unless `mode` is identity-only (a heap loaded identity-only is loaded again
// with them when they are needed). Throws protocol::RpcException:
// fileNotFound (also when the file was loaded once and is gone), the load's
// errors.
HeapEntry heap_for_path(DaemonContext& ctx, const std::string& path,
                        const protocol::RequestContext& request, LoadMode mode = LoadMode::kFull);

// `entry` with references: itself, or its file loaded again with them while
// the file is still the one it was loaded from (a heap named by id is a
// snapshot); else -32803 invalidArgument saying why.
HeapEntry with_references(DaemonContext& ctx, const HeapEntry& entry,
                          const protocol::RequestContext& request);

// The heaps of a plan's dumps (absolute paths), each current with its file:
// those to read are admitted in the plan's path order (their ids follow it),
// then read as the plan says: the target first on this thread, then
// `after_target` on it (its analyses) while the others load beside it at a
// lower priority; one progress for them all, cancelled with the request.
// The first failure (in path order) is thrown once every load has stopped.
std::vector<HeapEntry> heaps_for_plan(DaemonContext& ctx, const engine::LoadPlan& plan,
                                      const protocol::RequestContext& request,
                                      const std::function<void(const HeapEntry&)>& after_target);

// Collects, for the request running on this thread, the heaps heap_for_path
// loaded ({heap, path}) and reloaded ({heap, path, replaced, why}), and the
// dumps a diff streamed against B ({name, path}: daemon/streamed_dumps.h).
class PathLoadNotes {
 public:
  PathLoadNotes();
  ~PathLoadNotes();
  PathLoadNotes(const PathLoadNotes&) = delete;
  PathLoadNotes& operator=(const PathLoadNotes&) = delete;
  // Adds `loaded` and `reloaded` to a result object when there is any.
  void annotate(boost::json::value& result) const;

 private:
  friend void note_path_load(const char* kind, boost::json::object note);
  boost::json::array loaded_;
  boost::json::array reloaded_;
  boost::json::array streamed_;
  PathLoadNotes* outer_;
};

// What differs between a file as it was read and as it is now, for people
// ("replaced by another file", "size A -> B bytes", "modified since").
std::string what_changed(const FileIdentity& read, const FileIdentity& now);

// Tells the request running on this thread that a diff read `path` as a
// stream against B instead of loading it (the result's `streamed`); `why`:
// what changed since it was last read, when that is why it was read again.
void note_streamed(const std::string& name, const std::string& path, const std::string& why);

}  // namespace heapleak::daemon
