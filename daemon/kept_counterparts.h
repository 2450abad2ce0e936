// What a diff's streams said of their B (core/diagnosis/counterparts.h),
// kept by heapleakd for the next request on the same B and the same files
// (daemon/streamed_dumps.h): asking the same diff again reads nothing.
// A few at a time, each dropped with its B or when its file changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/base/file_identity.h"
#include "core/diagnosis/counterparts.h"
#include "core/heap/heap.h"

namespace heapleak::daemon {

class KeptCounterparts {
 public:
  // What `path` said of `target` while the file is `now`; else null, and
  // `changed_from` (if given) the file it was kept for, if another.
  std::shared_ptr<const Counterparts> find(
      const Heap& target, const std::string& path, const FileIdentity& now,
      std::optional<FileIdentity>* changed_from = nullptr) const;
  // Keeps what `path` said of `target`, dropping the oldest beyond a few.
  // Returns the heaps whose kept bytes changed (target, and the one whose
  // counterparts were dropped, if still alive), for the budget.
  std::vector<std::shared_ptr<const Heap>> keep(const std::shared_ptr<const Heap>& target,
                                                const std::string& path,
                                                std::shared_ptr<const Counterparts> counterparts);
  // The bytes kept for `target`.
  std::uint64_t bytes_for(const Heap& target) const;

 private:
  struct Kept {
    std::weak_ptr<const Heap> target;
    std::string path;
    std::shared_ptr<const Counterparts> counterparts;
  };
  // Two diffs' A and C: ~1 byte per object of B each, dropped with B.
  static constexpr std::size_t kKept = 4;
  mutable std::mutex mutex_;
  mutable std::vector<Kept> kept_;  // oldest first
};

}  // namespace heapleak::daemon
