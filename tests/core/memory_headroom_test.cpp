#include "core/base/memory_headroom.h"

#include <catch2/catch.hpp>
#include <cstdint>

#include "core/loading/loader.h"

using namespace heapleak;

namespace {
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
const char* const kMeminfo =
    "MemTotal:       24576000 kB\n"
    "MemFree:        16000000 kB\n"
    "MemAvailable:   20971520 kB\n"  // 20 GiB
    "Buffers:          41644 kB\n";
}  // namespace

TEST_CASE("memory headroom: MemAvailable, lowered to what the cgroup has left", "[memory]") {
  CHECK(memory_headroom_bytes(kMeminfo, "", "") == 20 * kGiB);
  CHECK(memory_headroom_bytes(kMeminfo, "max\n", "123\n") == 20 * kGiB);  // v2, no limit
  CHECK(memory_headroom_bytes(kMeminfo, "4294967296\n", "1073741824\n") == 3 * kGiB);
  CHECK(memory_headroom_bytes(kMeminfo, "4294967296\n", "5000000000\n") == 0);  // over its limit
  CHECK(memory_headroom_bytes(kMeminfo, "68719476736\n", "0\n") == 20 * kGiB);  // above RAM
  CHECK(memory_headroom_bytes("", "", "") == UINT64_MAX);                       // nothing known
  CHECK(memory_headroom_bytes("MemAvailable: junk\n", "junk", "") == UINT64_MAX);
  // This machine: some memory, whatever its cgroup.
  CHECK(memory_headroom_bytes() > 0);
}

TEST_CASE("loads at once: as many as fit in half the headroom, largest first", "[memory]") {
  // syn1700's three 1.8 GB dumps (~0.9 GB peak estimate each) on a 24 GB machine.
  const std::uint64_t syn1700 = estimate_peak_bytes(std::uint64_t{1800} << 20);
  CHECK(loads_that_fit({syn1700, syn1700, syn1700}, 20 * kGiB, 3) == 3);
  CHECK(loads_that_fit({syn1700, syn1700, syn1700}, 20 * kGiB, 2) == 2);  // the caller's cap
  // Within a 4 GB cgroup, two of them.
  CHECK(loads_that_fit({syn1700, syn1700, syn1700}, 4 * kGiB, 3) == 2);
  // A 10 GB dump loaded twice (`stats B B`) in 4 GB: one after the other.
  const std::uint64_t syn10g = estimate_peak_bytes(std::uint64_t{11} * kGiB);
  CHECK(loads_that_fit({syn10g, syn10g}, 4 * kGiB, 3) == 1);
  // Even on 20 GB: two 5.5 GB peaks are more than half of it.
  CHECK(loads_that_fit({syn10g, syn10g}, 20 * kGiB, 3) == 1);
  // The largest count first: a big B and two small dumps, only two fit.
  CHECK(loads_that_fit({kGiB / 4, 3 * kGiB, kGiB}, 8 * kGiB, 3) == 2);
  // Nothing fits: one load still runs (and meets its own budget checks).
  CHECK(loads_that_fit({syn10g}, kGiB, 3) == 1);
  CHECK(loads_that_fit({}, kGiB, 3) == 1);
  // Unknown headroom: the cap decides.
  CHECK(loads_that_fit({syn10g, syn10g, syn10g}, UINT64_MAX, 3) == 3);
}
