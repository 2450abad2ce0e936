#include "core/reading/read_method.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>

#include "core/base/page_size.h"

namespace heapleak {
namespace {

// 256 pages: each way takes 0.15-0.6 ms here, and the verdict is the same
// as a 4 MiB probe's (read, by 3.5x, six runs of each), whose buffer and
// mappings cost more to fault in than the timing needs: `info B` on a
// 130 MB dump took 0.22-0.24 s against 0.23-0.25 (bench/README.md).
constexpr std::size_t kProbeBytes = std::size_t{1} << 20;

// Reads one byte of every page, as the parser will: on a VM, the first
// read of a freshly mapped page can cost a nested page walk, which the
// copy's kernel-side reads do not.
std::uint8_t touch_pages(const char* bytes, std::size_t size) {
  std::uint8_t sum = 0;
  for (std::size_t at = 0; at < size; at += page_size())
    sum = static_cast<std::uint8_t>(sum + static_cast<std::uint8_t>(bytes[at]));
  return sum;
}

volatile std::uint8_t g_touched;  // keeps the touches from being optimised away

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Seconds to read `bytes` at `offset` into `buffer` and read a byte of
// each page; nullopt if the read fails or comes short.
std::optional<double> time_read(int fd, std::uint64_t offset, char* buffer, std::size_t bytes) {
  const auto start = std::chrono::steady_clock::now();
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(fd, buffer + done, bytes - done, static_cast<off_t>(offset + done));
    if (n <= 0) return std::nullopt;
    done += static_cast<std::size_t>(n);
  }
  g_touched = touch_pages(buffer, bytes);
  return seconds_since(start);
}

// Seconds to map `bytes` at `offset`, populate them, read a byte of each
// page and unmap them again, as the pipeline does per block (populated on
// the reader's core, read by the parser, dropped once parsed).
std::optional<double> time_map(int fd, std::uint64_t offset, std::size_t bytes) {
  const auto start = std::chrono::steady_clock::now();
  void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
  if (map == MAP_FAILED) return std::nullopt;
  const bool populated = ::madvise(map, bytes, MADV_POPULATE_READ) == 0;
  if (populated) g_touched = touch_pages(static_cast<const char*>(map), bytes);
  ::munmap(map, bytes);
  if (!populated) return std::nullopt;  // before Linux 5.14, or the file shrank
  return seconds_since(start);
}

ReadMethod probe(int fd, std::uint64_t begin) {
  const std::uint64_t offset = begin & ~std::uint64_t{page_size() - 1};
  std::unique_ptr<char[]> buffer(new (std::nothrow) char[kProbeBytes]);
  if (!buffer) return ReadMethod::kMap;
  // The first read brings the bytes into the page cache (from disk, if it
  // must): timed, it would measure the disk.
  if (!time_read(fd, offset, buffer.get(), kProbeBytes)) return ReadMethod::kMap;
  double read = 1e9, map = 1e9;
  for (int k = 0; k < 2; ++k) {
    const auto r = time_read(fd, offset, buffer.get(), kProbeBytes);
    const auto m = time_map(fd, offset, kProbeBytes);
    if (!r) return ReadMethod::kMap;
    if (!m) return ReadMethod::kRead;
    read = std::min(read, *r);
    map = std::min(map, *m);
  }
  return map <= read ? ReadMethod::kMap : ReadMethod::kRead;
}

}  // namespace

ReadMethod read_method_for(int fd, std::uint64_t begin, std::uint64_t end) {
  if (const char* forced = std::getenv("HEAPLEAK_READ")) {
    if (std::strcmp(forced, "read") == 0) return ReadMethod::kRead;
    if (std::strcmp(forced, "map") == 0) return ReadMethod::kMap;
  }
  if (end - begin < kProbeFrom) return ReadMethod::kMap;
  // Once per process: loads side by side would disturb each other's timing,
  // and the machine does not change between them.
  static std::once_flag once;
  static ReadMethod verdict = ReadMethod::kMap;
  std::call_once(once, [&] { verdict = probe(fd, begin); });
  return verdict;
}

}  // namespace heapleak
