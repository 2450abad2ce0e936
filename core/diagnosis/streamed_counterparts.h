// Counterparts (core/diagnosis/counterparts.h) read from a dump file as it
// streams by, against B's address column: each record of A or C is parsed,
// tested against B's object at its address and dropped, so a diff holds
// one byte per object of B for each of A and C instead of their heaps.
// The class-name test waits for the end of the file (a class's record may
// follow its instances'): the classes' names are kept as they pass.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "core/base/error.h"
#include "core/diagnosis/counterparts.h"
#include "core/heap/heap.h"

namespace heapleak {

struct StreamOptions {
  // The other dump's site trust (Heap::trust_sites_from, from its capture
  // manifest): generations below it are not believed.
  std::uint32_t sites_from = 0;
  const std::atomic<bool>* cancel = nullptr;
  // Called after each block with the file's bytes read so far (compressed,
  // for a gzip file) and its size, as a load's progress is.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

// `target` needs references (the shared-String test reads them). Fails as a
// load of `path` would: unreadable, not a heap dump, cancelled.
Result<Counterparts> stream_counterparts(const Heap& target, const std::string& path,
                                         const StreamOptions& options = {});

}  // namespace heapleak
