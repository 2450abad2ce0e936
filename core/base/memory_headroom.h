// How much memory this process can still take, and how many loads fit in it
// at once. Loads that run at once are faster on two cores but hold their
// peaks together: a 10 GB dump's two loads (`stats B B`) must stay one after
// the other within a 4 GB cgroup, three 1.8 GB dumps may all run at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace heapleak {

// MemAvailable from /proc/meminfo, lowered to what the process's memory
// cgroup (v1 or v2) has left under its limit; UINT64_MAX when none is known.
// The cgroup's file pages (page cache the kernel reclaims before it kills:
// a dump just read, an image just written) are not counted as used.
std::uint64_t memory_headroom_bytes();

// The same from given files' text (for tests): `meminfo` as /proc/meminfo,
// `limit` and `usage` as a cgroup's limit and usage ("" when absent; "max"
// is no limit), `stat` as its memory.stat (active_file, inactive_file).
std::uint64_t memory_headroom_bytes(const std::string& meminfo, const std::string& limit,
                                    const std::string& usage, const std::string& stat = "");

// How many loads may run at once (1 to `at_most`): the most n for which the
// n largest `peak_estimates` add up to at most half of `headroom` (the other
// half for what the analyses then build). At least 1: one load always runs.
std::size_t loads_that_fit(std::vector<std::uint64_t> peak_estimates, std::uint64_t headroom,
                           std::size_t at_most);

}  // namespace heapleak
