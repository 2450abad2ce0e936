// page_size(): the size of a memory page, asked of the system once. For the
// code that rounds addresses to pages before madvise: the prefaulter and the
// pipeline's mapped blocks.
#pragma once

#include <unistd.h>

#include <cstdint>

namespace heapleak {

inline std::uintptr_t page_size() {
  static const auto size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace heapleak
