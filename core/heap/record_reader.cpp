#include "core/heap/record_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/base/address.h"
#include "core/base/file_identity.h"
#include "core/reading/byte_source.h"

namespace heapleak {
namespace {

constexpr std::size_t kMaxRecord = std::size_t{256} << 20;

Error file_error(const Heap& heap, const std::string& what) {
  return make_error(ErrorReason::kNotReadable, heap.report().path + ": " + what);
}

// Reads from `source` (already positioned at the record) up to the newline.
Result<std::string> read_line(ByteSource& source, std::string line) {
  std::vector<char> chunk(64 * 1024);
  for (;;) {
    if (auto newline = line.find('\n'); newline != std::string::npos) {
      line.resize(newline);
      return line;
    }
    if (line.size() > kMaxRecord)
      return make_error(ErrorReason::kCorruptInput, "record longer than 256 MiB");
    auto n = source.read(chunk.data(), chunk.size());
    if (!n) return n.error();
    if (*n == 0) return line;  // last line without a newline
    line.append(chunk.data(), *n);
  }
}

// The line read back must be the record of the object's address: a last
// check against a file changed within the same mtime tick.
Result<std::string> check_record(const Heap& heap, ObjectIndex i, Result<std::string> line) {
  if (!line) return line;
  const std::string quoted = "\"" + format_address(heap.address(i)) + "\"";
  if (line->find(quoted) == std::string::npos) {
    return make_error(ErrorReason::kDumpChanged,
                      heap.report().path + ": the record read back is not the object's (" + quoted +
                          "): the dump changed since it was loaded; load it again");
  }
  return line;
}

// The record's line as it is in the file now, at the offset of the load.
Result<std::string> read_record_line(const Heap& heap, ObjectIndex i) {
  const LoadReport& report = heap.report();
  if (!heap.has_edges())
    return make_error(ErrorReason::kInvalidArgument, "the heap was loaded without record offsets");
  if (auto changed = dump_changed(heap)) return *changed;
  std::uint64_t skip = heap.line_offset(i);
  std::string line;
  // The loader already decided plain or gzip (by magic bytes): no need to
  // open the file twice to ask again.
  if (!report.gzip) {
    // Plain file: read from the record's offset directly.
    const int fd = ::open(report.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return file_error(heap, std::strerror(errno));
    std::vector<char> chunk(64 * 1024);
    for (;;) {
      const ssize_t n =
          ::pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(skip + line.size()));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      line.append(chunk.data(), static_cast<std::size_t>(n));
      if (line.find('\n') != std::string::npos || line.size() > kMaxRecord) break;
    }
    ::close(fd);
    if (auto newline = line.find('\n'); newline != std::string::npos) {
      line.resize(newline);
    } else if (line.size() > kMaxRecord) {
      return make_error(ErrorReason::kCorruptInput, "record longer than 256 MiB");
    }
    return line;
  }
  // gzip: through the nearest access point saved at load time (at most a few
  // MiB to inflate); before the first point, or if that fails, from the start.
  if (const GzipIndex* index = heap.gzip_index()) {
    if (auto line = read_gzip_line(report.path, *index, skip, kMaxRecord)) return line;
  }
  auto source = open_byte_source(report.path);
  if (!source) return source.error();
  std::vector<char> discard(1 << 20);
  while (skip > 0) {
    auto n = (*source)->read(discard.data(), std::min<std::uint64_t>(skip, discard.size()));
    if (!n) return n.error();
    if (*n == 0) return file_error(heap, "the dump ends before the record");
    skip -= *n;
  }
  return read_line(**source, std::move(line));
}

}  // namespace

std::optional<Error> dump_changed(const Heap& heap) {
  const LoadReport& report = heap.report();
  FileIdentity now;
  if (!file_identity(report.path, now)) {
    return file_error(heap, std::string("cannot re-read the dump: ") + std::strerror(errno));
  }
  // A rewritten dump (even at the same size) has another mtime or inode.
  if (now.size != report.file_bytes || (report.identity.inode != 0 && !(now == report.identity))) {
    return make_error(ErrorReason::kDumpChanged,
                      report.path + ": the dump changed since it was loaded; load it again");
  }
  return std::nullopt;
}

Result<std::string> read_record_text(const Heap& heap, ObjectIndex i) {
  return check_record(heap, i, read_record_line(heap, i));
}

}  // namespace heapleak
