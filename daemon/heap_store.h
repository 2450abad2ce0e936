// The heaps the daemon holds, shared by every connection. Heaps are named by
// a short id ("h1") or by their name; entries are immutable snapshots, so a
// query keeps its heap alive even if another client unloads it meanwhile.
// Also enforces the --max-memory budget: a load is admitted against an
// estimate before it starts, then charged what it really uses.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/heap.h"

namespace heapleak::daemon {

struct HeapEntry {
  std::string id;
  std::string name;
  std::string path;
  std::shared_ptr<const Heap> heap;
};

class HeapStore {
 public:
  explicit HeapStore(std::uint64_t max_bytes = 0) : max_bytes_(max_bytes) {}

  // Looks a heap up by id, then by name.
  std::optional<HeapEntry> find(const std::string& id_or_name) const;
  std::vector<HeapEntry> list() const;

  // Reserves `estimate` bytes for a load; false when the budget would be
  // exceeded (then `message` says by how much).
  bool admit(std::uint64_t estimate, std::string& message);
  // Gives back a reservation (load failed or was cancelled).
  void release(std::uint64_t estimate);
  // Stores a loaded heap, turning its reservation into its real size.
  HeapEntry add(std::string name, std::string path, std::shared_ptr<const Heap> heap, std::uint64_t estimate);
  bool remove(const std::string& id_or_name);

  std::uint64_t used_bytes() const;
  std::uint64_t max_bytes() const { return max_bytes_; }

  // A rough upper bound of what loading this file will hold at its peak.
  static std::uint64_t estimate_load_bytes(std::uint64_t file_bytes, bool gzip);

 private:
  mutable std::mutex mutex_;
  std::vector<HeapEntry> entries_;
  std::uint64_t next_id_ = 1;
  std::uint64_t max_bytes_;
  std::uint64_t reserved_ = 0;
  std::uint64_t resident_ = 0;
};

}  // namespace heapleak::daemon
