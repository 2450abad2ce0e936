// When fresh column memory asks for huge pages (core/base/huge_pages.h): only
// while the kernel has free 2 MiB blocks to spare, read from /proc/buddyinfo.
#include "core/base/huge_pages.h"

#include <catch2/catch.hpp>
#include <string>

#include "tests/core/test_dump.h"

using namespace heapleak;
using heapleak::test::ScopedEnv;

namespace {

// A machine with memory to spare: DMA32 has 2 free 2 MiB and 711 free
// 4 MiB blocks, Normal 40 and 1180 (orders 9 and 10 of 4 KiB pages).
const char* const kFree =
    "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1   "
    "   3 \n"
    "Node 0, zone    DMA32    199    113     66     58     55     61     49     47     39      2   "
    " 711 \n"
    "Node 0, zone   Normal  38149  16607   9363   7212   3701   1546    751   2813   1574     40   "
    "1180 \n";

// The same machine with the page cache full: few blocks of 2 MiB are left.
const char* const kFull =
    "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1   "
    "   3 \n"
    "Node 0, zone    DMA32     26     20     21     15      3      5      3      4     19      9   "
    "  44 \n"
    "Node 0, zone   Normal   9637   6697   4965   2238   1183    710    327    247      0      1   "
    "   3 \n";

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

}  // namespace

TEST_CASE("free memory in blocks of 2 MiB or more, from /proc/buddyinfo", "[huge_pages]") {
  // DMA: one 2 MiB block and three of 4 MiB; DMA32: 2 x 2 + 711 x 4; Normal: 40 x 2 + 1180 x 4.
  CHECK(free_huge_block_bytes(kFree, 4096) ==
        (2 + 3 * 4 + 2 * 2 + 711 * 4 + 40 * 2 + 1180 * 4) * kMiB);
  CHECK(free_huge_block_bytes(kFull, 4096) == (2 + 3 * 4 + 9 * 2 + 44 * 4 + 1 * 2 + 3 * 4) * kMiB);
  // With 64 KiB pages a 2 MiB block is of order 5.
  CHECK(free_huge_block_bytes("Node 0, zone Normal 0 0 0 0 0 3 1\n", 65536) == (3 * 2 + 4) * kMiB);
  CHECK(free_huge_block_bytes("", 4096) == 0);
  CHECK(free_huge_block_bytes("garbage\nNode 0, zone\n", 4096) == 0);
}

TEST_CASE("huge pages only while free 2 MiB blocks cover a mapping several times over",
          "[huge_pages]") {
  const std::uint64_t spare = free_huge_block_bytes(kFree, 4096);
  const std::uint64_t tight = free_huge_block_bytes(kFull, 4096);
  // A 256 MiB column: asked for huge pages on the first machine, not on the second.
  CHECK(huge_block_bytes_wanted(256 * kMiB) <= spare);
  CHECK(huge_block_bytes_wanted(256 * kMiB) > tight);
  // Even a small mapping wants the margin: loads side by side map at once.
  CHECK(huge_block_bytes_wanted(4 * kMiB) > tight);
  CHECK(huge_block_bytes_wanted(2048 * kMiB) > spare);
}

TEST_CASE("huge pages only while the process's cgroup has room for them too", "[huge_pages]") {
  const std::uint64_t spare = free_huge_block_bytes(kFree, 4096);
  // The machine has the blocks; a 4 GB cgroup with 3 GB left has room for a
  // 256 MiB column's, one with 1 GB left (a load near its cap) has not.
  CHECK(huge_pages_fit(spare, 3072 * kMiB, 256 * kMiB));
  CHECK_FALSE(huge_pages_fit(spare, 1024 * kMiB, 256 * kMiB));
  // No cgroup, no MemAvailable: the blocks decide.
  CHECK(huge_pages_fit(spare, UINT64_MAX, 256 * kMiB));
  CHECK_FALSE(huge_pages_fit(free_huge_block_bytes(kFull, 4096), UINT64_MAX, 256 * kMiB));
}

TEST_CASE("HEAPLEAK_HUGEPAGES forces huge pages on or off", "[huge_pages]") {
  {
    ScopedEnv on("HEAPLEAK_HUGEPAGES", "1");
    CHECK(huge_pages_for(std::size_t{1} << 40));
  }
  {
    ScopedEnv off("HEAPLEAK_HUGEPAGES", "0");
    CHECK_FALSE(huge_pages_for(std::size_t{4} << 20));
  }
}
