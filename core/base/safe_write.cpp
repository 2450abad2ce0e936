#include "core/base/safe_write.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace heapleak {
namespace {

constexpr std::string_view kTempMark = ".tmp.";
constexpr std::size_t kRandomHex = 16;

Error not_writable(const std::string& message) { return Error{ErrorReason::kNotWritable, message}; }
Error os_error(const std::string& what, const std::string& path, int err) {
  return not_writable("cannot " + what + " " + path + ": " + std::strerror(err));
}

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string random_hex() {
  unsigned char bytes[kRandomHex / 2];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // cannot happen on Linux >= 3.17; the pid still separates writers
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

// Names a shell or our own process hands out for its open files: written
// through whatever they are (a regular file when stdout is redirected).
bool is_special(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode); }

// The descriptor a name like /dev/stdout or /proc/self/fd/3 stands for, or -1.
int open_descriptor_number(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::size_t n = std::strlen(prefix);
    if (path.compare(0, n, prefix) != 0) continue;
    const std::string digits = path.substr(n);
    if (digits.empty() || digits.size() > 6 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    return std::stoi(digits);
  }
  return -1;
}

bool names_an_open_descriptor(const std::string& path) { return open_descriptor_number(path) >= 0; }

bool pid_alive(long pid) {
  if (pid <= 0 || pid != static_cast<pid_t>(pid)) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

std::optional<Error> check_output_folder(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return os_error("use the folder", dir, errno);
  if (!S_ISDIR(st.st_mode)) return not_writable(dir + " is not a folder");
  if (st.st_uid != ::geteuid() && st.st_uid != 0)
    return not_writable("the folder " + dir + " belongs to another user (uid " +
                        std::to_string(st.st_uid) + "): refusing to write into it");
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
    return not_writable("the folder " + dir +
                        " may be written by other users (group or others, no sticky bit): "
                        "refusing to write into it");
  return std::nullopt;
}

SafeWrite::~SafeWrite() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

Result<std::unique_ptr<SafeWrite>> SafeWrite::open(const std::string& target,
                                                   SpecialTarget special) {
  if (target.empty()) return not_writable("an empty output path");
  struct stat st {};
  int keep_mode = -1;
  if (::lstat(target.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode) || is_special(st.st_mode)) {
      struct stat resolved {};
      const bool resolves = ::stat(target.c_str(), &resolved) == 0;
      const bool through = special == SpecialTarget::kWriteThrough && resolves &&
                           (is_special(resolved.st_mode) ||
                            (S_ISREG(resolved.st_mode) && names_an_open_descriptor(target)));
      if (through) return open_through(target, S_ISLNK(st.st_mode) ? 0 : O_NOFOLLOW);
      if (S_ISLNK(st.st_mode))
        return not_writable(target +
                            " is a symbolic link: refusing to replace it or write through it "
                            "(give the file it points to)");
      return not_writable(target +
                          " is not a regular file (a device, FIFO or socket): refusing "
                          "to write it");
    }
    if (S_ISDIR(st.st_mode)) return not_writable(target + " is a folder");
    if (!S_ISREG(st.st_mode))
      return not_writable(target + " is not a regular file: refusing to write it");
    keep_mode = static_cast<int>(st.st_mode & 0777);
  } else if (errno != ENOENT) {
    return os_error("write", target, errno);
  }
  const std::string dir = folder_of(target);
  if (auto refused = check_output_folder(dir))
    return not_writable("cannot write " + target + ": " + refused->message);
  const std::string base = target.substr(target.find_last_of('/') + 1);
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string temp =
        dir + "/" + base + std::string(kTempMark) + std::to_string(::getpid()) + "." + random_hex();
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
      return std::unique_ptr<SafeWrite>(new SafeWrite(target, std::move(temp), fd, keep_mode));
    if (errno != EEXIST) return os_error("create a temporary beside", target, errno);
  }
  return not_writable("cannot create a temporary beside " + target + ": every name was taken");
}

Result<std::unique_ptr<SafeWrite>> SafeWrite::open_through(const std::string& path,
                                                           int extra_flags) {
  // Our own descriptors are shared, not reopened: a redirected stdout keeps
  // its offset and its append mode.
  int fd = -1;
  const int number = open_descriptor_number(path);
  if (number >= 0) {
    fd = ::fcntl(number, F_DUPFD_CLOEXEC, 3);
  } else {
    fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | extra_flags);
  }
  if (fd < 0) return os_error("write", path, errno);
  struct stat st {};
  // The name may have changed between lstat and open: still no regular file
  // is written in place unless it is one of our open descriptors.
  if (::fstat(fd, &st) != 0 || S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode) ||
      (S_ISREG(st.st_mode) && number < 0)) {
    ::close(fd);
    return not_writable(path + " changed while it was opened: refusing to write it");
  }
  return std::unique_ptr<SafeWrite>(new SafeWrite(path, "", fd, -1));
}

std::optional<Error> SafeWrite::commit(bool durable) {
  if (temp_.empty()) {  // a device or FIFO: nothing to sync or rename
    const int status = ::close(fd_);
    fd_ = -1;
    if (status != 0 && errno != EINTR) return os_error("write", target_, errno);
    return std::nullopt;
  }
  if (mode_ >= 0 && ::fchmod(fd_, static_cast<mode_t>(mode_)) != 0)
    return os_error("write", temp_, errno);
  if (durable && ::fsync(fd_) != 0) return os_error("write", target_, errno);
  const int status = ::close(fd_);
  fd_ = -1;
  if (status != 0) return os_error("write", target_, errno);
  // rename() replaces a name, never follows it: a symbolic link planted at
  // the target since open() is replaced, not written through.
  if (::rename(temp_.c_str(), target_.c_str()) != 0) return os_error("write", target_, errno);
  temp_.clear();
  return std::nullopt;
}

std::optional<Error> write_file_safely(const std::string& path, std::string_view bytes,
                                       SpecialTarget special) {
  auto file = SafeWrite::open(path, special);
  if (!file) return file.error();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write((*file)->fd(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return os_error("write", path, n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  return (*file)->commit();
}

bool is_stale_temporary_name(const std::string& name) {
  // TARGET.tmp.PID.RANDOM: the random part is exactly kRandomHex hex digits.
  if (name.size() < kRandomHex + 1) return false;
  const std::size_t dot = name.size() - kRandomHex - 1;
  if (name[dot] != '.') return false;
  for (std::size_t k = dot + 1; k < name.size(); ++k)
    if (!std::isxdigit(static_cast<unsigned char>(name[k])) || std::isupper(name[k])) return false;
  const std::size_t mark = name.rfind(kTempMark, dot);
  if (mark == std::string::npos || mark == 0) return false;
  const std::string digits = name.substr(mark + kTempMark.size(), dot - mark - kTempMark.size());
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  return !pid_alive(std::stol(digits));
}

std::size_t remove_stale_temporaries(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> listing(::opendir(dir.c_str()), ::closedir);
  if (!listing) return 0;
  std::size_t removed = 0;
  while (const dirent* entry = ::readdir(listing.get())) {
    const std::string name = entry->d_name;
    if (!is_stale_temporary_name(name)) continue;
    struct stat st {};
    // Only our own regular files: never another user's, never a link.
    if (::fstatat(::dirfd(listing.get()), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode) || st.st_uid != ::geteuid())
      continue;
    if (::unlinkat(::dirfd(listing.get()), name.c_str(), 0) == 0) ++removed;
  }
  return removed;
}

}  // namespace heapleak
