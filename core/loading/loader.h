// Loads one ObjectSpace.dump_all file (plain or gzip) into a Heap: a reader
// thread feeds whole-line blocks to the parser on the calling thread. Broken
// lines are skipped and counted; a file with no heap records at all is
// refused as "not a heap dump". Progress and cancellation are checked per block.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/heap/heap.h"
#include "core/reading/load_mode.h"

namespace heapleak {

// What a load that runs alone sets split_from_bytes to: below it the second
// thread and the merge cost more than they save.
inline constexpr std::uint64_t kSplitWhenAloneFrom = std::uint64_t{64} << 20;

struct LoadOptions {
  LoadMode mode = LoadMode::kFull;
  std::size_t block_size = std::size_t{4} << 20;
  // A line longer than this (or a block, if larger) is counted broken and
  // skipped without being buffered. Ruby writes long lines for big strings
  // and arrays, hence generous.
  std::size_t max_line_bytes = std::size_t{64} << 20;
  // What the cache lookup before this load found (core/images/cached_load.h), copied
  // into the report: a miss, or an image rebuilt and why.
  CacheUse cache = CacheUse::kOff;
  // Fault the growing columns in on a second thread (core/reading/prefaulter.h) for
  // files of this size and more; UINT64_MAX: never. Below it the fresh
  // memory saved is small and the pages faulted ahead of each column (2 MiB
  // each, both halves of a split load) are most of the peak: a 137 MB dump
  // (431 K objects) peaked at 134 MB with them and 75 MB without, in the
  // same 0.17 s.
  std::uint64_t prefault_from_bytes = std::uint64_t{256} << 20;
  // Read plain files of this size and more in two halves, the second on a
  // thread of its own, then merged (core/loading/loader.cpp, SecondHalf). UINT64_MAX
  // (the default): never. Worth it when the load is the only work: with
  // loads side by side the cores are busy already, and the merge only costs.
  std::uint64_t split_from_bytes = UINT64_MAX;
  std::vector<std::string> cache_warnings;
};

struct LoadControl {
  const std::atomic<bool>* cancel = nullptr;
  // Called from the loading thread with (file bytes consumed, file size).
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  // Called from the loading thread before the load reserves anything, then
  // after each block, with what the load is
  // expected to hold at its peak by now (estimate_peak_bytes of the JSON read
  // so far, plus what long lines grew the reader's buffers by); false fails the load with
  // overBudget and frees everything it held.
  std::function<bool(std::uint64_t bytes)> charge;
};

// Where a load splits a plain dump of `file_bytes` in two (split_from_bytes):
// just after the first newline past its middle; 0 (no split) when none
// comes within 1 MiB of it.
std::uint64_t split_point(const std::string& path, std::uint64_t file_bytes);

// A rough upper bound of the peak memory of loading `json_bytes` of dump:
// measured, a heap holds ~0.2 bytes per byte of JSON and a load peaks near
// twice that while it sorts and builds edges.
std::uint64_t estimate_peak_bytes(std::uint64_t json_bytes);

// The error of a read of `path` that found no heap record (`objects`,
// report.root_records and report.shapes all 0): a gzip cut short, an empty
// file, or not a dump; nullopt when it found one. A load and a dump
// streamed against B (core/diagnosis/streamed_counterparts.h) say the same.
std::optional<Error> no_heap_records(const std::string& path, std::uint64_t objects,
                                     const LoadReport& report, std::uint64_t non_blank_lines);

Result<std::shared_ptr<const Heap>> load_heap(const std::string& path,
                                              const LoadOptions& options = {},
                                              const LoadControl& control = {});

}  // namespace heapleak
