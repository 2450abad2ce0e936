#include "core/dump_redaction.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "core/byte_source.h"
#include "core/string_redactor.h"

namespace heapleak {
namespace {

Error write_error(const std::string& path, int err) {
  return Error{ErrorReason::kNotWritable, "cannot write " + path + ": " + std::strerror(err)};
}

// The output file: plain write(2) or zlib's gz* on the same descriptor.
class Sink {
 public:
  Sink(std::string path, int fd, bool gzip) : path_(std::move(path)), fd_(fd), wants_gzip_(gzip) {
    if (gzip) gz_ = gzdopen(dup(fd_), "wb1");
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() {
    if (gz_) gzclose(gz_);
    if (fd_ >= 0) ::close(fd_);
  }

  bool gzip_failed() const { return wants_gzip_ && gz_ == nullptr; }

  std::optional<Error> write(const std::string& bytes) {
    if (gz_) {
      if (!bytes.empty() && gzwrite(gz_, bytes.data(), static_cast<unsigned>(bytes.size())) == 0) {
        int zerr = 0;
        const char* message = gzerror(gz_, &zerr);
        return Error{
            ErrorReason::kNotWritable,
            "cannot write " + path_ + ": " + (zerr == Z_ERRNO ? std::strerror(errno) : message)};
      }
      return std::nullopt;
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return write_error(path_, n < 0 ? errno : ENOSPC);
      done += static_cast<std::size_t>(n);
    }
    return std::nullopt;
  }

  // Flushes, closes the gzip stream and fsyncs: every late failure (a full
  // disk shows at close) is an error.
  std::optional<Error> finish() {
    if (gz_) {
      const int status = gzclose(gz_);
      gz_ = nullptr;
      if (status != Z_OK) return write_error(path_, status == Z_ERRNO ? errno : EIO);
    }
    if (::fsync(fd_) != 0) return write_error(path_, errno);
    const int status = ::close(fd_);
    fd_ = -1;
    if (status != 0) return write_error(path_, errno);
    return std::nullopt;
  }

 private:
  std::string path_;
  int fd_ = -1;
  gzFile gz_ = nullptr;
  bool wants_gzip_ = false;
};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<RedactionStats> redact_dump(const std::string& in, const std::string& out,
                                   const SipKey& key) {
  auto source = open_byte_source(in);
  if (!source) return source.error();
  struct stat target {};
  if (::stat(out.c_str(), &target) == 0 && (*source)->identity().inode == target.st_ino &&
      (*source)->identity().device == target.st_dev)
    return Error{ErrorReason::kInvalidArgument,
                 out + " is the dump being redacted: give another path"};

  const std::string tmp = out + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return write_error(tmp, errno);
  struct RemoveUnlessRenamed {
    const std::string& path;
    bool renamed = false;
    ~RemoveUnlessRenamed() {
      if (!renamed) ::unlink(path.c_str());
    }
  } cleanup{tmp};
  Sink sink(tmp, fd, ends_with(out, ".gz"));
  if (sink.gzip_failed()) return write_error(tmp, ENOMEM);

  const StringRedactor redactor(key);
  RedactionStats stats;
  std::vector<char> buffer(4 << 20);
  std::string carry;  // a line split across two reads
  std::string output;
  output.reserve(buffer.size() + (1 << 16));
  auto emit = [&](std::string_view line) {
    ++stats.lines;
    if (redactor.redact_line(line, output)) ++stats.strings_redacted;
  };
  for (;;) {
    auto got = (*source)->read(buffer.data(), buffer.size());
    if (!got) return got.error();
    if (*got == 0) break;
    stats.bytes_in += *got;
    std::string_view chunk(buffer.data(), *got);
    std::size_t start = 0;
    for (std::size_t nl; (nl = chunk.find('\n', start)) != std::string_view::npos; start = nl + 1) {
      if (carry.empty()) {
        emit(chunk.substr(start, nl + 1 - start));
      } else {
        carry.append(chunk.substr(start, nl + 1 - start));
        emit(carry);
        carry.clear();
      }
    }
    carry.append(chunk.substr(start));
    stats.bytes_out += output.size();
    if (auto error = sink.write(output)) return *error;
    output.clear();
  }
  if (!carry.empty()) emit(carry);
  stats.bytes_out += output.size();
  if (auto error = sink.write(output)) return *error;
  if (auto error = sink.finish()) return *error;
  stats.truncated = (*source)->truncated();
  if (::rename(tmp.c_str(), out.c_str()) != 0) return write_error(out, errno);
  cleanup.renamed = true;
  return stats;
}

}  // namespace heapleak
