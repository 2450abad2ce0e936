// The CLI's loads of a diff (explain, check, report, stats): B loaded with
// its references, then every other dump streamed against it
// (core/diagnosis/streamed_counterparts.h: one byte per object of B, no
// heap) while B's analyses run; a dump with a cache image is mapped from it
// instead. The rare pass that needs more of A or C (a compaction, objects
// moved between B and C, an entry replaced by a copy) loads it then.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/diagnosis/other_dump.h"
#include "core/heap/heap.h"
#include "engine/diff_set.h"

namespace heapleak::cli {

struct LoadedDiff {
  std::vector<std::shared_ptr<const Heap>> heaps;          // by dump: loaded, or null
  std::vector<std::shared_ptr<const OtherDump>> streamed;  // by dump: streamed, or null
  bool ok = false;

  const Heap& target() const;
  // The engine's view of them (borrows: this must outlive it).
  engine::DiffSet set() const;
};

// On a failure prints the error (each, in the order of the paths), sets
// `exit_code` and returns ok = false; `errors` collects every message.
// `analyses`: compute B's dominator tree and root paths meanwhile (explain,
// check, report; stats reads neither).
LoadedDiff load_leak_diff(const std::vector<std::string>& paths, int& exit_code,
                          std::vector<std::string>* errors = nullptr, bool analyses = true);

}  // namespace heapleak::cli
