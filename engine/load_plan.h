// How a use case's dumps load, decided once for every front end: each
// dump's mode (only B keeps references), the order the loads start in (B
// first), how many run at once, and the load the answer waits on (B: its
// dominator tree and root paths follow its load at once, while the others
// load at a lower priority). Also the one estimate of what a load peaks at.
// The CLI runs a plan on its own threads, heapleakd on its request's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/heap/heap.h"
#include "core/reading/load_mode.h"

namespace heapleak::engine {

struct DumpLoad {
  std::string path;
  LoadMode mode = LoadMode::kFull;
};

struct LoadPlan {
  std::vector<DumpLoad> loads;     // in the paths' order
  std::vector<std::size_t> order;  // indices into `loads`, in the order they start
  std::size_t at_once = 3;
  // B, when the answer waits on its analyses: run analyse_target on it as
  // soon as it is loaded, and the other loads at a lower priority.
  std::optional<std::size_t> target;
};

// heapleakd's dumps of a diff A B [C], or a series D1..DN (N >= 4) whose
// D(N-1) is B: B in full, the others identity-only, three at a time (the
// CLI streams the others against B instead: clients/cli/diff_loads.h).
LoadPlan plan_leak_loads(const std::vector<std::string>& paths);

// What B's answer needs of it, computed as soon as it is loaded: its
// dominator tree and root paths (no-ops on a heap without references).
void analyse_target(const Heap& heap);

// Lowers the calling thread's priority (nice 10; Linux's nice is per
// thread, and the threads a load starts inherit it): a plan's loads beside
// its target run so, leaving the target's thread the core it needs. It
// cannot be raised back without privilege: call it on a thread of its own.
void lower_this_threads_priority();

// What loading `path` may peak at: estimate_peak_bytes of its JSON, a
// gzipped dump taken as 8 times its size (the usual ratio of dumps). 0 for
// what is not a readable regular file (the load then says why). Never
// blocks: a FIFO is not opened.
std::uint64_t load_peak_estimate(const std::string& path);

}  // namespace heapleak::engine
