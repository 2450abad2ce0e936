// The dominator tree of a heap, from a super-root over every ROOT category:
// object d dominates o when every path from a GC root to o passes through d,
// so freeing d frees o. Retained size = memsize summed over the dominated
// subtree. Semi-dominators by Lengauer-Tarjan (path compression), idoms by
// Semi-NCA; iterative throughout (Ruby heaps have chains millions long) over
// uint32_t arrays; computed once per heap on first use (Heap::dominators()).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/base/column.h"
#include "core/heap/heap.h"

namespace heapleak {

class DominatorTree {
 public:
  // The super-root above all GC roots: the idom of every root target.
  static constexpr ObjectIndex kSuperRoot = kNoObject - 1;

  explicit DominatorTree(const Heap& heap);
  // A tree computed before (a cache file's mapped columns, core/images/analyses_image.h),
  // from what preorder()/idoms()/retained_sizes() and the counts returned.
  DominatorTree(Column<std::uint32_t> preorder, Column<ObjectIndex> idom,
                Column<std::uint64_t> retained, std::size_t reachable,
                std::uint64_t unreachable_bytes);

  bool reachable(ObjectIndex i) const { return preorder_[i] != kUnvisited; }
  // kSuperRoot for root targets, kNoObject when unreachable.
  ObjectIndex idom(ObjectIndex i) const { return idom_[i]; }
  // memsize of i plus everything it dominates; own memsize when unreachable.
  std::uint64_t retained(ObjectIndex i) const { return retained_[i]; }

  // Lowest common dominator of `objects` (unreachable ones ignored):
  // kSuperRoot when no single object dominates them all, kNoObject when
  // none is reachable.
  ObjectIndex common_dominator(std::span<const ObjectIndex> objects) const;
  // Does a dominate b (a == b counts)?
  bool dominates(ObjectIndex a, ObjectIndex b) const;

  std::size_t reachable_count() const { return reachable_; }
  std::uint64_t unreachable_bytes() const { return unreachable_bytes_; }
  std::size_t unreachable_count() const { return idom_.size() - reachable_; }
  std::size_t bytes_used() const;
  // The arrays themselves, to keep on disk; mapped() when read from one.
  const Column<std::uint32_t>& preorder() const { return preorder_; }
  const Column<ObjectIndex>& idoms() const { return idom_; }
  const Column<std::uint64_t>& retained_sizes() const { return retained_; }
  bool mapped() const { return idom_.is_view(); }

 private:
  static constexpr std::uint32_t kUnvisited = UINT32_MAX;

  ObjectIndex lca(ObjectIndex a, ObjectIndex b) const;

  Column<std::uint32_t> preorder_;  // DFS number from the super-root (ancestors are smaller)
  Column<ObjectIndex> idom_;
  Column<std::uint64_t> retained_;
  std::size_t reachable_ = 0;
  std::uint64_t unreachable_bytes_ = 0;
};

}  // namespace heapleak
