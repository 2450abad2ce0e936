// One dump of a diff other than B (A, C, or another dump of a series) as the
// passes read it: what it says of each object of B and of itself
// (Counterparts), always; its heap only where a pass needs more than that (a
// compaction's count by content, objects moved between B and C, an entry
// replaced by a copy, a series' sizes). Held (tests, heapleakd), or streamed
// against B with a loader that reads the heap when a pass first asks and
// frees it when the last pass holding it lets go.
#pragma once

#include <functional>
#include <memory>

#include "core/diagnosis/counterparts.h"
#include "core/heap/heap.h"

namespace heapleak {

class OtherDump {
 public:
  // Reads the dump's heap (identity-only is enough); throws when it cannot.
  using Loader = std::function<std::shared_ptr<const Heap>()>;

  // Held: its counterparts are read off it now (counterparts_of).
  OtherDump(const Heap& target, const Heap& held);
  // Streamed (core/diagnosis/streamed_counterparts.h).
  OtherDump(Counterparts streamed, Loader load);
  // Streamed earlier and kept (heapleakd keeps what a dump said of B for
  // the next request on the same files, each with its own loader).
  OtherDump(std::shared_ptr<const Counterparts> streamed, Loader load);

  const Counterparts& of_target() const { return *counterparts_; }
  const DumpSummary& summary() const { return counterparts_->dump; }
  const LoadReport& report() const { return counterparts_->dump.report; }

  // The whole heap: the held one, else loaded now (or still loaded for an
  // earlier pass that holds it). Throws the loader's error.
  std::shared_ptr<const Heap> heap() const;
  // The heap if one is at hand without loading (held, or loaded and held by
  // a pass), else null.
  std::shared_ptr<const Heap> heap_if_loaded() const;
  // How many times a heap was loaded for a pass (0 when held): what a
  // streamed diff paid for the passes that need more.
  unsigned loads() const { return loads_; }

 private:
  std::shared_ptr<const Counterparts> counterparts_;
  const Heap* held_ = nullptr;
  Loader load_;
  mutable std::weak_ptr<const Heap> loaded_;
  mutable unsigned loads_ = 0;
};

}  // namespace heapleak
