// A load's watch on the memory the machine (or the process's cgroup) has
// left, for a process with no budget of its own (heapleakd or heapleak
// without --max-memory): before it starts, a load whose low estimate cannot
// fit is refused; while it parses, one on course to need more than was left
// when it began, or that leaves almost nothing, is stopped, so the load fails
// alone instead of the kernel killing the process (and every heap it holds).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/loading/loader.h"
#include "core/reading/load_mode.h"

namespace heapleak {

class LoadMemoryGuard {
 public:
  // What the process can still take now (memory_headroom_bytes by default).
  using Headroom = std::function<std::uint64_t()>;

  // Stops a load when less than this is left, whatever its course.
  static constexpr std::uint64_t kFloorBytes = std::uint64_t{64} << 20;
  // The course is the memory taken by now plus, for the rest of the file,
  // the rate it was taken at since the look at a tenth of the file: a load
  // takes ~100 MiB at once as it starts (read blocks, the first pages of
  // each column), which scaled from the start would double the course at a
  // fifth. Judged from a tenth of the file after that look on.
  static constexpr double kRateFrom = 0.1;
  static constexpr double kRateOver = 0.1;
  // Sorting and building edges after the parse take this much more than the
  // parse did (class_cache large's B: 460 MiB parsed, 482 at the peak).
  static constexpr double kFinishFactor = 1.2;
  // Looks at the headroom again after this much more of the file.
  static constexpr std::uint64_t kCheckEveryBytes = std::uint64_t{32} << 20;

  // Reads the headroom now, just before the load of `path` starts: what its
  // course is judged against. `low_need`: a floor of what the load will hold
  // (core/loading/memory_fit.h), asked at the first look only, on the loading thread,
  // so a load served by a cache image (which never parses) never pays for it.
  LoadMemoryGuard(std::string path, std::function<std::uint64_t()> low_need,
                  Headroom headroom = {});
  // The same, the low need being a load in `mode` of the objects sampled in
  // the dump at `path` (estimate_dump_objects, low_load_bytes).
  LoadMemoryGuard(const std::string& path, LoadMode mode);
  // watch() hands `this` to a LoadControl: the guard stays where it is.
  LoadMemoryGuard(const LoadMemoryGuard&) = delete;
  LoadMemoryGuard& operator=(const LoadMemoryGuard&) = delete;

  // Makes a load's `control` ask this guard after each block, on top of
  // what its progress and charge already do: progress records how far the
  // load has read, and charge fails once still_fits does. The guard must
  // outlive the load.
  void watch(LoadControl& control);

  // After each parsed block: `done` of `total` file bytes read. False once
  // the load should stop (then reason() says why, for people, and the
  // caller adds what to do: unload a heap, use the cache...): at the first
  // look when its low need exceeds what was left at the start, later when it
  // is on course to need more than that, or when almost nothing is left.
  // `total` 0 (not known yet): only the first look and the floor.
  // The headroom is read at most every kCheckEveryBytes of the file.
  bool still_fits(std::uint64_t done, std::uint64_t total);
  const std::string& reason() const { return reason_; }

 private:
  bool first_look();

  std::string path_;
  std::function<std::uint64_t()> low_need_;
  Headroom headroom_;
  std::uint64_t at_start_ = 0;  // headroom before the load began
  bool looked_ = false;
  std::uint64_t checked_at_ = 0;  // `done` at the last look
  std::uint64_t done_ = 0;        // watch(): the load's progress, as last reported
  std::uint64_t total_ = 0;
  double rate_share_ = -1;        // the share read at the rate's look (-1: none yet)
  std::uint64_t rate_taken_ = 0;  // memory taken by then
  std::string reason_;
};

}  // namespace heapleak
