// The heaps the daemon holds, shared by every connection. Heaps are named by
// a short id ("h1") or by their name; entries are immutable snapshots, so a
// query keeps its heap alive even if another client unloads it meanwhile.
// Also enforces the --max-memory budget: a load, or an analysis a query
// caches on a heap (dominator tree, root paths), is admitted against an
// estimate of its peak before it starts, then charged what it really keeps.
// A load in progress holds its name, so a query sent right after loadHeap
// can wait for it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/heap/heap.h"

namespace heapleak::daemon {

struct HeapEntry {
  std::string id;
  std::string name;
  std::string path;
  std::shared_ptr<const Heap> heap;
  // What the budget charges for this heap: its columns and, once computed,
  // its cached analyses, and what is kept beside it for it (set by the store).
  std::uint64_t charged = 0;
  std::uint64_t number = 0;  // the digits of `id`, for keeping the list in id order
  // Kept beside the heap for it: what the dumps streamed against it said
  // (daemon/kept_counterparts.h), charged with it.
  std::uint64_t beside = 0;
};

class HeapStore {
 public:
  explicit HeapStore(std::uint64_t max_bytes = 0) : max_bytes_(max_bytes) {}

  // Looks a heap up by id, then by name. When there is none, `still_loading`
  // (if given) says whether a load of that name is running, in the same look.
  std::optional<HeapEntry> find(const std::string& id_or_name, bool* still_loading = nullptr) const;
  std::vector<HeapEntry> list() const;
  // The heap loaded last from `path` (absolute, lexically normal), if any.
  std::optional<HeapEntry> find_by_path(const std::string& path) const;

  // Reserves `estimate` bytes for a load; false when the budget would be
  // exceeded (then `message` says by how much).
  bool admit(std::uint64_t estimate, std::string& message);
  // Reserves `estimate` bytes for an analysis of a loaded heap; false when
  // the budget would be exceeded (then `available` says what is free).
  bool admit_analysis(std::uint64_t estimate, std::uint64_t& available);
  // Frees a reservation made by admit_analysis.
  void release(std::uint64_t reserved);
  // Charges heap `id` again for what it holds now (columns plus cached
  // analyses); a heap no longer stored is ignored.
  void recharge(const std::string& id);

  // Charges the stored heap `heap` (if any) `bytes` kept beside it for it,
  // in place of what was charged beside it before.
  void charge_beside(const Heap& heap, std::uint64_t bytes);

  // A running load grew: raises its reservation `reserved` to `bytes` if the
  // budget allows (then true); never lowers it.
  bool extend(std::uint64_t& reserved, std::uint64_t bytes);

  // "h" and digits: the shape of ids, which names never take (ids are looked
  // up first, so such a name would be shadowed by a later heap's id).
  static bool looks_like_id(const std::string& name);

  // Starts a load: reserves a name no loaded heap or running load has (the
  // wanted one, else "name-2", "name-3"...), and returns it. The heap's id is
  // taken here too, so ids follow the order loads begin in. A load that
  // fails gives its id back if no later load took one; else it stays unused
  // (an id once shown is never reused).
  std::string begin_load(const std::string& wanted_name);
  // Ends a load begun with begin_load by storing its heap under the reserved
  // name, turning the load's reservation into its real size. `announce` runs
  // before the queries waiting for it resume, so loadHeap answers first.
  void finish_load(const std::string& name, std::string path, std::shared_ptr<const Heap> heap,
                   std::uint64_t estimate, const std::function<void(const HeapEntry&)>& announce);
  // Ends a load that failed or was cancelled: frees its name and reservation.
  void abandon_load(const std::string& name, std::uint64_t estimate);
  // The names of the loads that have begun and not ended, oldest first.
  std::vector<std::string> loading_names() const;
  // Calls `resume` (on the thread that ends the load) once the load of `name`
  // ends, either way. False, and `resume` is dropped, when none is running.
  bool when_load_ends(const std::string& name, std::function<void()> resume);

  bool remove(const std::string& id_or_name);

  std::uint64_t used_bytes() const;
  std::uint64_t max_bytes() const { return max_bytes_; }

 private:
  mutable std::mutex mutex_;
  struct RunningLoad {
    std::string name;
    std::uint64_t number;  // of the id the heap gets
    std::vector<std::function<void()>> waiters;
  };
  // Removes the load of `name` and returns it (its id's number, whoever
  // waits for it); nullopt when none is running.
  std::optional<RunningLoad> end_load_locked(const std::string& name);
  bool name_taken_locked(const std::string& name) const;

  std::vector<HeapEntry> entries_;
  std::vector<RunningLoad> running_;
  std::uint64_t next_id_ = 1;
  std::uint64_t max_bytes_;
  std::uint64_t reserved_ = 0;
  std::uint64_t resident_ = 0;
};

}  // namespace heapleak::daemon
