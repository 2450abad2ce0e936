#include "core/base/huge_pages.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/base/memory_headroom.h"
#include "core/base/page_size.h"

namespace heapleak {

std::uint64_t free_huge_block_bytes(const std::string& buddyinfo, std::size_t page_bytes) {
  constexpr std::uint64_t kHugeBlock = std::uint64_t{2} << 20;
  std::uint64_t total = 0;
  std::istringstream lines(buddyinfo);
  std::string line;
  while (std::getline(lines, line)) {
    // "Node 0, zone   Normal   38149  16607 ...": free blocks of order 0, 1, ...
    const auto zone = line.find("zone");
    if (zone == std::string::npos) continue;
    std::istringstream fields(line.substr(zone + 4));
    std::string name;
    fields >> name;
    std::uint64_t count = 0;
    for (unsigned order = 0; order < 64 && fields >> count; ++order) {
      const std::uint64_t block = std::uint64_t{page_bytes} << order;
      if (block >= kHugeBlock) total += count * block;
    }
  }
  return total;
}

std::uint64_t huge_block_bytes_wanted(std::size_t bytes) {
  // Several times the mapping, and a margin: loads side by side map at
  // once, and the dumps they read take free blocks for the page cache.
  return std::uint64_t{4} * bytes + (std::uint64_t{512} << 20);
}

bool huge_pages_for(std::size_t bytes) {
  if (const char* forced = std::getenv("HEAPLEAK_HUGEPAGES")) {
    if (std::strcmp(forced, "1") == 0) return true;
    if (std::strcmp(forced, "0") == 0) return false;
  }
  std::ifstream file("/proc/buddyinfo");
  if (!file) return false;
  std::stringstream text;
  text << file.rdbuf();
  const std::uint64_t free_blocks = free_huge_block_bytes(text.str(), page_size());
  // The cgroup's headroom only when the machine has the blocks: it costs a
  // few more file reads.
  return huge_pages_fit(free_blocks,
                        free_blocks >= huge_block_bytes_wanted(bytes) ? memory_headroom_bytes() : 0,
                        bytes);
}

bool huge_pages_fit(std::uint64_t free_blocks, std::uint64_t headroom, std::size_t bytes) {
  const std::uint64_t wanted = huge_block_bytes_wanted(bytes);
  return free_blocks >= wanted && headroom >= wanted;
}

}  // namespace heapleak
