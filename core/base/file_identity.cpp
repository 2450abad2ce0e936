#include "core/base/file_identity.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "core/base/checksum.h"

namespace heapleak {

FileIdentity identity_of(const struct stat& info) {
  FileIdentity id;
  id.device = static_cast<std::uint64_t>(info.st_dev);
  id.inode = static_cast<std::uint64_t>(info.st_ino);
  id.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  id.ctime_ns = static_cast<std::int64_t>(info.st_ctim.tv_sec) * 1000000000 + info.st_ctim.tv_nsec;
  id.size = static_cast<std::uint64_t>(info.st_size);
  return id;
}

bool file_identity(const std::string& path, FileIdentity& out) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return false;
  out = identity_of(info);
  return true;
}

std::uint64_t head_tail_hash(const std::string& path) {
  constexpr std::size_t kPart = 64 << 10;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;
  struct stat info {};
  std::vector<char> bytes;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    const auto size = static_cast<std::size_t>(info.st_size);
    const std::size_t head = std::min(size, kPart);
    const std::size_t tail = std::min(size - head, kPart);
    bytes.resize(head + tail);
    const bool ok = ::pread(fd, bytes.data(), head, 0) == static_cast<ssize_t>(head) &&
                    ::pread(fd, bytes.data() + head, tail, static_cast<off_t>(size - tail)) ==
                        static_cast<ssize_t>(tail);
    if (!ok) bytes.clear();
  }
  ::close(fd);
  return bytes.empty() ? 0 : xxh64(bytes.data(), bytes.size()) | 1;
}

}  // namespace heapleak
