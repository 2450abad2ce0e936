// The one way heapleak writes a file (baselines, reports, redacted copies,
// cache images): into an exclusive, no-follow, 0600 temporary with an
// unpredictable name beside the target, renamed over it only when complete.
// It owns the rules for the output folder (ours or root's, not writable by
// others unless sticky) and for what already sits at the target's name.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/error.h"

namespace heapleak {

// What to do when the target is a character device, FIFO or socket (also
// through a symbolic link, as /dev/stdout is): write into it as it is, or
// refuse. Either way it is never renamed over. A block device, a folder, or
// a symbolic link to anything else is always refused.
enum class SpecialTarget { kWriteThrough, kRefuse };

// Why `dir` may not receive our files, or nothing: it must be a folder owned
// by us or by root, and not writable by group or others unless sticky (as
// /tmp is: there nobody else can rename or delete what we create).
std::optional<Error> check_output_folder(const std::string& dir);

class SafeWrite {
 public:
  // Opens the temporary beside `target` (or `target` itself when written
  // through). Errors are kNotWritable with the reason in words.
  static Result<std::unique_ptr<SafeWrite>> open(const std::string& target, SpecialTarget special);
  SafeWrite(const SafeWrite&) = delete;
  SafeWrite& operator=(const SafeWrite&) = delete;
  ~SafeWrite();  // removes the temporary unless committed

  int fd() const { return fd_; }
  bool writes_through() const { return temp_.empty(); }
  const std::string& temp_path() const { return temp_; }

  // Flushes to disk (unless `durable` is false: a cache file that a crash
  // cuts is detected by its checksums, and is not worth an fsync), closes and
  // renames the temporary over the target (a regular file it replaces keeps
  // its permission bits); for a device or FIFO just closes. A late failure (a
  // full disk at fsync or close) is an error.
  std::optional<Error> commit(bool durable = true);

 private:
  static Result<std::unique_ptr<SafeWrite>> open_through(const std::string& path, int extra_flags);
  SafeWrite(std::string target, std::string temp, int fd, int mode)
      : target_(std::move(target)), temp_(std::move(temp)), fd_(fd), mode_(mode) {}
  std::string target_;
  std::string temp_;  // empty: writing straight into the target
  int fd_ = -1;
  int mode_ = -1;  // the replaced file's permission bits, or -1
};

// `bytes` written to `path` by SafeWrite.
std::optional<Error> write_file_safely(const std::string& path, std::string_view bytes,
                                       SpecialTarget special);

// Removes the temporaries SafeWrite left in `dir` when its process was
// killed: only regular files of ours named TARGET.tmp.PID.RANDOM whose PID
// is not alive. Returns how many were removed.
std::size_t remove_stale_temporaries(const std::string& dir);

// Whether a temporary's name (as SafeWrite makes them) belongs to a process
// that is gone.
bool is_stale_temporary_name(const std::string& name);

}  // namespace heapleak
