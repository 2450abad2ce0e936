// Loads one ObjectSpace.dump_all file (plain or gzip) into a Heap: a reader
// thread feeds whole-line blocks to the parser on the calling thread. Broken
// lines are skipped and counted; a file with no heap records at all is
// refused as "not a heap dump". Progress and cancellation are checked per block.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/heap.h"

namespace heapleak {

struct LoadOptions {
  // false: identity columns only, no references, record offsets or methods
  // (the leak diff needs nothing more), at about half the memory.
  bool build_edges = true;
  std::size_t block_size = std::size_t{4} << 20;
};

struct LoadControl {
  const std::atomic<bool>* cancel = nullptr;
  // Called from the loading thread with (file bytes consumed, file size).
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

Result<std::shared_ptr<const Heap>> load_heap(const std::string& path,
                                              const LoadOptions& options = {},
                                              const LoadControl& control = {});

}  // namespace heapleak
