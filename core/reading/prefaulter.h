// Prefaulter: a thread that faults in, ahead of time, the pages the loader's
// growing columns are about to be written to. On a VM the first touch of
// fresh memory (a fault and a zeroed page) is a large share of a load; done
// on another core while the loader parses, that cost leaves the critical path.
// It only asks the kernel to populate (MADV_POPULATE_WRITE): it never reads or
// writes the columns, so a range that went away in the meantime is harmless.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace heapleak {

class Prefaulter {
 public:
  // Where one growing array stands: bytes written so far, bytes reserved.
  struct Range {
    const void* base = nullptr;
    std::size_t used_bytes = 0;
    std::size_t capacity_bytes = 0;
    // All of it, not just ahead of `used_bytes`: an array about to be filled.
    bool whole = false;
  };

  // `ahead_bytes`: how far past each range's written bytes to populate
  // (at least 2 MiB, the unit columns are mapped in: core/base/column.h).
  explicit Prefaulter(std::size_t ahead_bytes = kDefaultAhead);
  ~Prefaulter();
  Prefaulter(const Prefaulter&) = delete;
  Prefaulter& operator=(const Prefaulter&) = delete;

  // Publishes the current ranges (replacing the last ones); the thread
  // catches up when it is free. Cheap: called once per parsed block.
  void advance(std::span<const Range> ranges);

  // False when the kernel cannot populate ahead (before Linux 5.14): the
  // thread then stops at its first attempt and costs nothing more.
  static bool supported();

  static constexpr std::size_t kDefaultAhead = std::size_t{2} << 20;

 private:
  struct Progress {
    const void* base;
    std::size_t populated_bytes;  // from base
  };

  void run();
  void populate(const Range& range);

  const std::size_t ahead_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Range> published_;
  bool fresh_ = false;
  bool stopping_ = false;
  std::vector<Progress> progress_;  // the thread's own
  bool failed_ = false;             // the thread's own
  std::thread thread_;
};

}  // namespace heapleak
