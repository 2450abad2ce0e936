// Whether a run's loads can fit the memory left, judged before the first
// starts: a run that cannot is refused with what it needs and what is left,
// instead of being killed by the kernel minutes in (issue 30). The need is a
// low estimate (objects, from line lengths sampled in each dump, times the
// fewest bytes per object measured), so a refusal is sure and a run near the
// edge still runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/reading/load_mode.h"

namespace heapleak {

// Objects in a dump, estimated from the mean length of its lines: a plain
// file's lines in three 1 MiB windows (at a quarter, half and three
// quarters), a gzip file's first 8 MiB inflated (which also gives its
// compression ratio). nullopt when the file cannot be read or sampled.
std::optional<std::uint64_t> estimate_dump_objects(const std::string& path);

// Less than a load in `mode` of `objects` was measured to hold (full: 57-74
// bytes per object, identity-only: 48-51, traced and untraced dumps): a
// floor, not a forecast.
std::uint64_t low_load_bytes(std::uint64_t objects, LoadMode mode);

struct PlannedLoad {
  std::string path;
  LoadMode mode = LoadMode::kFull;
  // The run computes this heap's dominator tree and root paths (explain's
  // and check's B): at least the 20 bytes per object they keep.
  bool analysed = false;
};

struct FitVerdict {
  bool fits = true;
  std::uint64_t needed = 0;    // the low estimate of the loads held together
  std::uint64_t headroom = 0;  // what was compared with it
  std::uint64_t objects = 0;   // estimated, over all the dumps
};

// Whether `loads`, all held at once (a run without the cache keeps every
// heap it loaded), can fit in `headroom` bytes. A dump whose objects cannot
// be estimated counts for nothing: the loader's own errors will tell.
FitVerdict judge_fit(const std::vector<PlannedLoad>& loads, std::uint64_t headroom);

// The refusal's text: the need, the headroom and the ways out (the cache,
// --max-memory).
std::string fit_refusal_message(const FitVerdict& verdict);

}  // namespace heapleak
