// A diff's dumps as a front end hands them to the engine: B loaded with its
// references; every other dump held (a loaded heap: heapleakd, the tests)
// or streamed against B (the CLI: core/diagnosis/other_dump.h), each read
// once for what it says of B's objects. C is replaced by its reread when
// objects moved between B and C ask for its references (judge_dumps).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/diagnosis/other_dump.h"
#include "core/heap/heap.h"

namespace heapleak::engine {

class DiffSet {
 public:
  // Every dump held: A B [C], or D1..DN.
  explicit DiffSet(std::span<const Heap* const> heaps);
  // B held (`heaps[target]`); every other dump k given as `others[k]`, or
  // held as `heaps[k]` when others[k] is null.
  DiffSet(std::vector<const Heap*> heaps, std::vector<std::shared_ptr<const OtherDump>> others);

  std::size_t size() const { return heaps_.size(); }
  const Heap& target() const { return *heaps_[target_]; }
  // By dump: the held heap (null where streamed), what it says of B (null for B).
  const std::vector<const Heap*>& heaps() const { return heaps_; }
  const std::vector<const OtherDump*>& others() const { return others_; }
  // Dump k's summary (B's own too).
  const DumpSummary& summary(std::size_t k) const;
  const LoadReport& report(std::size_t k) const { return summary(k).report; }

  // Dump k held from now on as `heap` (C read again with its references).
  void replace(std::size_t k, std::shared_ptr<const Heap> heap);

 private:
  std::size_t target_ = 0;
  std::vector<const Heap*> heaps_;
  std::vector<std::shared_ptr<const OtherDump>> owned_;
  std::vector<const OtherDump*> others_;
  std::vector<std::shared_ptr<const Heap>> kept_;  // rereads
  DumpSummary target_summary_;
};

}  // namespace heapleak::engine
