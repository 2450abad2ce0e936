#include "core/file_identity.h"

namespace heapleak {

FileIdentity identity_of(const struct stat& info) {
  FileIdentity id;
  id.device = static_cast<std::uint64_t>(info.st_dev);
  id.inode = static_cast<std::uint64_t>(info.st_ino);
  id.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  id.size = static_cast<std::uint64_t>(info.st_size);
  return id;
}

bool file_identity(const std::string& path, FileIdentity& out) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return false;
  out = identity_of(info);
  return true;
}

}  // namespace heapleak
