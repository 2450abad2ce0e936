// Shortest paths from the GC roots: a breadth-first search forward from every
// ROOT category's targets gives each object a parent; a path is a walk up the
// parents. The machine stack's targets seed a second search over what the
// first left unreached, so a path names the machine stack only for objects
// nothing else reaches. Computed once per heap on first use (Heap::root_paths()).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/column.h"
#include "core/base/error.h"
#include "core/heap/heap.h"

namespace heapleak {

// As presented: VM internals before the first Ruby-visible object (3.4+'s
// `DATA:VM/pin_array_list`) are moved to `root_via`, so the path starts at
// what Ruby code can name, and 4.0's `IMEMO:fields` hops are dropped (the
// fields object is part of its owner: `UserCache -> Hash`, one hop).
struct RootPath {
  std::string root;                   // the ROOT category (vm, global_tbl, ...)
  std::vector<ObjectIndex> path;      // path.back() is the object
  std::vector<ObjectIndex> root_via;  // VM internals between the root and path.front()
};

class RootPaths {
 public:
  explicit RootPaths(const Heap& heap);
  // Root paths computed before (a cache file's mapped column, core/images/analyses_image.h):
  // `parents` as parents() returned them, one per object.
  RootPaths(Column<std::uint32_t> parents, std::size_t reachable)
      : parent_(std::move(parents)), reachable_(reachable) {}

  bool reachable(ObjectIndex i) const { return parent_[i] != kUnreached; }
  std::size_t reachable_count() const { return reachable_; }
  std::size_t bytes_used() const { return parent_.capacity() * sizeof(std::uint32_t); }
  // The raw parent column (an object, or a root category's code), to keep on
  // disk; true when it is mapped from a cache file rather than computed.
  const Column<std::uint32_t>& parents() const { return parent_; }
  bool mapped() const { return parent_.is_view(); }
  // Empty path when the object is not reachable from any root.
  RootPath path_to(const Heap& heap, ObjectIndex i) const;
  // The object before `i` on its shortest path; kNoObject for a root target
  // or an unreachable object.
  ObjectIndex parent(ObjectIndex i) const {
    return parent_[i] < kRootBase ? parent_[i] : kNoObject;
  }
  // For a root target, the index of its category in heap.roots(); else -1.
  int root_category(ObjectIndex i) const {
    return parent_[i] >= kRootBase && parent_[i] != kUnreached
               ? static_cast<int>(parent_[i] - kRootBase)
               : -1;
  }

  // The parent column's codes past the objects (public for the cache's checks).
  static constexpr std::uint32_t kUnreached = UINT32_MAX;
  static constexpr std::uint32_t kRootBase =
      0xFFFF0000u;  // parent of a root target: kRootBase + category

 private:
  Column<std::uint32_t> parent_;
  std::size_t reachable_ = 0;
};

// The shortest path from a GC root to `i`, or a clear error (partial dump
// without ROOT records, unreachable object).
Result<RootPath> path_to_root(const Heap& heap, ObjectIndex i);

}  // namespace heapleak
