// Test helper for the fuzz targets: an in-memory file (memfd) with a path the
// loader can open(), so each input costs no disk I/O and leaves nothing behind.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

class MemfdFile {
 public:
  MemfdFile(const void* data, std::size_t size)
      : fd_(::memfd_create("heapleak-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t n = ::write(fd_, p, size);
      if (n <= 0) std::abort();
      p += n;
      size -= static_cast<std::size_t>(n);
    }
  }
  ~MemfdFile() { ::close(fd_); }
  MemfdFile(const MemfdFile&) = delete;
  MemfdFile& operator=(const MemfdFile&) = delete;

  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};
