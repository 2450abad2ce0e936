// page_size(): the size of a memory page, asked of the system once. For the
// code that rounds addresses to pages before madvise: the prefaulter, the
// pipeline's mapped blocks and the read method's probe; they also share the
// MADV_POPULATE_* values older headers lack.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older headers lack it
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace heapleak {

inline std::uintptr_t page_size() {
  static const auto size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace heapleak
