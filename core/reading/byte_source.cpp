#include "core/reading/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace heapleak {
namespace {

// Owns a file descriptor; reads retry on EINTR.
class FileHandle {
 public:
  explicit FileHandle(int fd) : fd_(fd) {}
  ~FileHandle() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;

  int fd() const { return fd_; }

  bool seek(std::uint64_t offset) {
    return ::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) == static_cast<off_t>(offset);
  }

  Result<std::size_t> read(char* out, std::size_t capacity) {
    for (;;) {
      ssize_t n = ::read(fd_, out, capacity);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno == EINTR) continue;
      return make_error(ErrorReason::kNotReadable,
                        std::string("read failed: ") + std::strerror(errno));
    }
  }

 private:
  int fd_;
};

class PlainSource final : public ByteSource {
 public:
  PlainSource(int fd, std::uint64_t size) : file_(fd), left_(size) { file_size_ = size; }

  Result<std::size_t> read(char* out, std::size_t capacity) override {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(capacity, left_));
    auto n = file_.read(out, want);
    if (!n) return n;
    // The mapping fails the same way (core/reading/line_pipeline.cpp): a dump cut
    // while it loads must not load as a shorter dump.
    if (*n == 0 && want > 0) return make_error(ErrorReason::kNotReadable, kFileCutShort);
    consumed_ += *n;
    left_ -= *n;
    return n;
  }
  std::uint64_t file_bytes_consumed() const override { return consumed_; }
  bool restrict_to(std::uint64_t begin, std::uint64_t end) override {
    if (consumed_ != 0 || begin > end || !file_.seek(begin)) return false;
    begin_ = begin;
    left_ = end - begin;
    return true;
  }
  std::optional<PlainRange> plain_range() const override {
    const std::uint64_t at = begin_ + consumed_;
    return PlainRange{file_.fd(), at, at + left_};
  }
  bool skip(std::uint64_t bytes) override {
    if (bytes > left_ || !file_.seek(begin_ + consumed_ + bytes)) return false;
    consumed_ += bytes;
    left_ -= bytes;
    return true;
  }

 private:
  FileHandle file_;
  std::uint64_t begin_ = 0;  // of the range restrict_to set
  std::uint64_t consumed_ = 0;
  std::uint64_t left_;  // to the end of the range, or of the file as opened
};

// Inflates gzip members back to back (pigz and `cat a.gz b.gz` write several).
class GzipSource final : public ByteSource {
 public:
  GzipSource(int fd, std::uint64_t size) : file_(fd), input_(1 << 20) {
    file_size_ = size;
    compressed_ = true;
    std::memset(&stream_, 0, sizeof(stream_));
    inflateInit2(&stream_, 15 + 32);  // 32: accept the gzip header
  }
  ~GzipSource() override { inflateEnd(&stream_); }

  Result<std::size_t> read(char* out, std::size_t capacity) override {
    stream_.next_out = reinterpret_cast<Bytef*>(out);
    stream_.avail_out = static_cast<uInt>(capacity);
    while (stream_.avail_out == capacity && !finished_) {
      if (stream_.avail_in == 0) {
        auto n = file_.read(input_.data(), input_.size());
        if (!n) return n.error();
        consumed_ += *n;
        if (*n == 0) {
          // A member cut short (the process was killed while writing it):
          // hand out what inflated and say so; a cut plain dump loads too.
          truncated_ = !member_done_;
          finished_ = true;
          break;
        }
        stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
        stream_.avail_in = static_cast<uInt>(*n);
      }
      if (member_done_) {
        // Another member follows the previous one: start it afresh.
        inflateReset(&stream_);
        member_done_ = false;
      }
      // Z_BLOCK stops at deflate block boundaries, where access points can be saved.
      const uInt before = stream_.avail_out;
      int rc = inflate(&stream_, Z_BLOCK);
      out_total_ += before - stream_.avail_out;
      if (rc == Z_STREAM_END) {
        member_done_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return make_error(
            ErrorReason::kCorruptInput,
            std::string("gzip data is corrupt: ") + (stream_.msg ? stream_.msg : "inflate failed"));
      } else {
        maybe_save_access_point();
      }
    }
    return capacity - stream_.avail_out;
  }
  // What inflate has taken, not what was read ahead into input_ (up to 1 MiB:
  // a dump's first 8 MiB inflate from ~0.5 MiB, and core/loading/memory_fit.cpp
  // takes the ratio of the two); the whole file once it has ended.
  std::uint64_t file_bytes_consumed() const override {
    return finished_ ? consumed_ : consumed_ - stream_.avail_in;
  }
  std::shared_ptr<const GzipIndex> access_index() const override { return index_; }
  bool truncated() const override { return truncated_; }

 private:
  // At the end of a deflate block that is not the member's last, with enough
  // output since the previous point, save where inflate could restart.
  void maybe_save_access_point() {
    const bool block_end = (stream_.data_type & 128) != 0 && (stream_.data_type & 64) == 0;
    if (!block_end || out_total_ < next_point_) return;
    GzipAccessPoint point;
    point.out = out_total_;
    point.in = consumed_ - stream_.avail_in;
    point.bits = stream_.data_type & 7;
    point.window.resize(32768);
    uInt length = 32768;
    if (inflateGetDictionary(&stream_, point.window.data(), &length) != Z_OK) return;
    point.window.resize(length);
    index_->points.push_back(std::move(point));
    next_point_ = out_total_ + GzipIndex::kSpacing;
  }

  FileHandle file_;
  std::vector<char> input_;
  z_stream stream_;
  std::uint64_t out_total_ = 0;
  std::uint64_t next_point_ = GzipIndex::kSpacing;
  std::shared_ptr<GzipIndex> index_ = std::make_shared<GzipIndex>();
  std::uint64_t consumed_ = 0;
  bool member_done_ = false;
  bool finished_ = false;
  bool truncated_ = false;
};

// Why a non-regular file cannot be a dump, or null for a regular file.
const char* not_regular(const struct stat& info) {
  if (S_ISREG(info.st_mode)) return nullptr;
  if (S_ISDIR(info.st_mode)) return "is a directory, not a heap dump file";
  if (S_ISFIFO(info.st_mode)) return "is a FIFO (named pipe), not a heap dump file";
  if (S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode)) return "is a device, not a heap dump file";
  if (S_ISSOCK(info.st_mode)) return "is a socket, not a heap dump file";
  return "is not a regular file";
}

}  // namespace

bool has_gzip_magic(const unsigned char* prefix, std::size_t size) {
  return size >= 2 && prefix[0] == 0x1f && prefix[1] == 0x8b;
}

Result<std::unique_ptr<ByteSource>> open_byte_source(const std::string& path) {
  auto failure = [&path](int err) {
    const auto reason = err == ENOENT ? ErrorReason::kFileNotFound : ErrorReason::kNotReadable;
    return make_error(reason, path + ": " + std::strerror(err));
  };
  // stat first: opening a FIFO for reading blocks until a writer comes.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return failure(errno);
  if (const char* why = not_regular(info))
    return make_error(ErrorReason::kNotReadable, path + ": " + why);
  // Non-blocking, in case the path was swapped for a FIFO since the stat;
  // fstat then decides on what was really opened.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return failure(errno);
  if (::fstat(fd, &info) != 0 || not_regular(info) != nullptr) {
    ::close(fd);
    return make_error(ErrorReason::kNotReadable,
                      path + ": " + (not_regular(info) ? not_regular(info) : "cannot stat"));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  unsigned char magic[2] = {0, 0};
  const ssize_t got = ::pread(fd, magic, sizeof magic, 0);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  std::unique_ptr<ByteSource> source;
  if (got == 2 && has_gzip_magic(magic, 2)) {
    source.reset(new GzipSource(fd, size));
  } else {
    source.reset(new PlainSource(fd, size));
  }
  source->identity_ = identity_of(info);
  return source;
}

}  // namespace heapleak
