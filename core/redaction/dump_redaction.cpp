#include "core/redaction/dump_redaction.h"

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

#include "core/base/safe_write.h"
#include "core/reading/byte_source.h"
#include "core/redaction/string_redactor.h"

namespace heapleak {
namespace {

Error write_error(const std::string& path, int err) {
  return Error{ErrorReason::kNotWritable, "cannot write " + path + ": " + std::strerror(err)};
}

// The output: plain write(2) or zlib's gz* on a duplicate of the same
// descriptor (SafeWrite owns, syncs and closes the original).
class Sink {
 public:
  Sink(std::string path, int fd, bool gzip) : path_(std::move(path)), fd_(fd), wants_gzip_(gzip) {
    if (gzip) {
      const int copy = ::fcntl(fd_, F_DUPFD_CLOEXEC, 3);
      if (copy >= 0) gz_ = gzdopen(copy, "wb1");
      if (copy >= 0 && gz_ == nullptr) ::close(copy);
    }
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() {
    if (gz_) gzclose(gz_);
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

  // Flushes and closes the gzip stream: a full disk may show only here.
  std::optional<Error> finish() {
    if (gz_) {
      const int status = gzclose(gz_);
      gz_ = nullptr;
      if (status != Z_OK) return write_error(path_, status == Z_ERRNO ? errno : EIO);
    }
    return std::nullopt;
  }

 private:
  std::string path_;
  int fd_ = -1;
  gzFile gz_ = nullptr;
  bool wants_gzip_ = false;
};

Error unreadable_line(const std::string& in, std::uint64_t line, const std::string& why) {
  return Error{ErrorReason::kCorruptInput,
               in + ": line " + std::to_string(line) + " " + why +
                   ": it cannot be known to be redacted, so nothing was written"};
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<RedactionStats> redact_dump(const std::string& in, const std::string& out, const SipKey& key,
                                   std::size_t max_line_bytes) {
  auto source = open_byte_source(in);
  if (!source) return source.error();
  struct stat target {};
  if (::stat(out.c_str(), &target) == 0 && (*source)->identity().inode == target.st_ino &&
      (*source)->identity().device == target.st_dev)
    return Error{ErrorReason::kInvalidArgument,
                 out + " is the dump being redacted: give another path"};

  auto file = SafeWrite::open(out, SpecialTarget::kWriteThrough);
  if (!file) return file.error();
  Sink sink(out, (*file)->fd(), ends_with(out, ".gz"));
  if (sink.gzip_failed()) return write_error(out, ENOMEM);

  const StringRedactor redactor(key);
  RedactionStats stats;
  std::vector<char> buffer(4 << 20);
  std::string carry;  // a line split across two reads
  std::string output;
  output.reserve(buffer.size() + (1 << 16));
  std::optional<Error> refused;
  auto emit = [&](std::string_view line) {
    ++stats.lines;
    switch (redactor.redact_line(line, output)) {
      case StringRedactor::Outcome::kRedacted:
        ++stats.values_redacted;
        break;
      case StringRedactor::Outcome::kKept:
        break;
      case StringRedactor::Outcome::kUnreadable:
        if (!refused) refused = unreadable_line(in, stats.lines, "is not a JSON object");
        break;
    }
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
        if (nl + 1 - start > max_line_bytes)
          return unreadable_line(in, stats.lines + 1, "is longer than the loader's line cap");
        emit(chunk.substr(start, nl + 1 - start));
      } else {
        carry.append(chunk.substr(start, nl + 1 - start));
        if (carry.size() > max_line_bytes)
          return unreadable_line(in, stats.lines + 1, "is longer than the loader's line cap");
        emit(carry);
        carry.clear();
      }
      if (refused) return *refused;
    }
    carry.append(chunk.substr(start));
    // The cap holds while a line is read: an endless line stops here, with
    // at most one cap and one buffer held.
    if (carry.size() > max_line_bytes)
      return unreadable_line(in, stats.lines + 1, "is longer than the loader's line cap");
    stats.bytes_out += output.size();
    if (auto error = sink.write(output)) return *error;
    output.clear();
  }
  stats.truncated = (*source)->truncated();
  if (!carry.empty()) {
    // The last line, with no newline: a dump cut short ends mid-record. That
    // cut record is dropped (the loader skips it too); a whole one is copied.
    const std::size_t before = output.size();
    emit(carry);
    if (refused) {
      refused.reset();
      output.resize(before);
      --stats.lines;
      stats.truncated = true;
    }
  }
  stats.bytes_out += output.size();
  if (auto error = sink.write(output)) return *error;
  if (auto error = sink.finish()) return *error;
  if (auto error = (*file)->commit()) return *error;
  return stats;
}

}  // namespace heapleak
