// Which file a heap was read from, as it was then (device, inode, mtime,
// ctime, size): a dump rewritten since, even at the same size, has another
// identity, so records are never read back from a different file than was
// loaded. ctime is there because mtime can be set back (`touch -r`) and ctime
// cannot (short of changing the clock): any write, and also a chmod, chown,
// link or rename, gives a new identity. What none of it sees: a file system
// that does not keep these times, or a writer able to set the clock.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>

namespace heapleak {

struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t size = 0;
  bool operator==(const FileIdentity&) const = default;
};

FileIdentity identity_of(const struct stat& info);

// The identity of `path` now (following symlinks); false when it cannot be stat'ed.
bool file_identity(const std::string& path, FileIdentity& out);

// XXH64 of the first and last 64 KiB of `path` (the whole file when smaller),
// for the cache key: a dump rewritten in place with its mtime restored still
// differs here. 0 when the file cannot be read.
std::uint64_t head_tail_hash(const std::string& path);

}  // namespace heapleak
