#include "core/loading/memory_fit.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/heap/analysis_cost.h"
#include "core/reading/byte_source.h"

namespace heapleak {
namespace {

constexpr std::size_t kWindowBytes = std::size_t{1} << 20;
constexpr std::size_t kGzipHeadBytes = std::size_t{8} << 20;
// What every load holds whatever its size: the reader's blocks, the
// parser, the tables of names (measured: a 1 MB dump's run peaks near 30 MB).
constexpr std::uint64_t kFixedBytes = std::uint64_t{24} << 20;

struct LineSample {
  std::uint64_t bytes = 0;  // from the first line start to the last line end
  std::uint64_t lines = 0;
};

// The whole lines of a window that starts anywhere in a line: those after
// its first newline (unless the window starts the file) up to its last.
LineSample whole_lines(const char* data, std::size_t size, bool starts_file) {
  const char* begin = data;
  const char* end = data + size;
  if (!starts_file) {
    const void* first = std::memchr(begin, '\n', size);
    if (first == nullptr) return {};
    begin = static_cast<const char*>(first) + 1;
  }
  LineSample sample;
  const char* last_end = begin;
  for (const char* p = begin; p < end;) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (nl == nullptr) break;
    p = static_cast<const char*>(nl) + 1;
    last_end = p;
    ++sample.lines;
  }
  sample.bytes = static_cast<std::uint64_t>(last_end - begin);
  return sample;
}

std::optional<std::uint64_t> objects_from(const LineSample& sample, std::uint64_t json_bytes) {
  if (sample.lines == 0 || sample.bytes == 0) return std::nullopt;
  return json_bytes * sample.lines / sample.bytes;
}

std::optional<std::uint64_t> plain_objects(ByteSource& source) {
  const auto range = source.plain_range();
  if (!range) return std::nullopt;
  const std::uint64_t size = source.file_size();
  std::vector<char> window(kWindowBytes);
  LineSample total;
  // A small file is read whole: its line count is then exact.
  const std::vector<std::uint64_t> offsets =
      size <= 3 * kWindowBytes ? std::vector<std::uint64_t>{0}
                               : std::vector<std::uint64_t>{size / 4, size / 2, size / 4 * 3};
  if (size <= 3 * kWindowBytes) window.resize(static_cast<std::size_t>(size));
  for (const std::uint64_t offset : offsets) {
    const ssize_t got =
        ::pread(range->fd, window.data(), window.size(), static_cast<off_t>(offset));
    if (got <= 0) continue;
    const LineSample sample =
        whole_lines(window.data(), static_cast<std::size_t>(got), offset == 0);
    total.bytes += sample.bytes;
    total.lines += sample.lines;
  }
  if (size <= 3 * kWindowBytes) return total.lines;
  return objects_from(total, size);
}

// A gzip file's last four bytes: ISIZE, the last member's inflated size
// modulo 2^32 (0 when unreadable).
std::uint64_t trailer_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(-4, std::ios::end);
  unsigned char bytes[4] = {};
  if (!in.read(reinterpret_cast<char*>(bytes), 4)) return 0;
  return std::uint64_t{bytes[0]} | std::uint64_t{bytes[1]} << 8 | std::uint64_t{bytes[2]} << 16 |
         std::uint64_t{bytes[3]} << 24;
}

std::optional<std::uint64_t> gzip_objects(ByteSource& source, const std::string& path) {
  std::vector<char> head(kGzipHeadBytes);
  std::size_t filled = 0;
  while (filled < head.size()) {
    auto got = source.read(head.data() + filled, head.size() - filled);
    if (!got || *got == 0) break;
    filled += *got;
  }
  const LineSample sample = whole_lines(head.data(), filled, true);
  if (filled < head.size()) return sample.lines;  // inflated to its end: exact
  const std::uint64_t consumed = source.file_bytes_consumed();
  if (consumed == 0) return std::nullopt;
  // The head's compression ratio, taken for the whole file. A dump's head
  // (roots, classes, code) compresses less than its body: class_cache's
  // 270 MB compress 15x, its first 8 MiB 6x. The gzip trailer's size (of the
  // last member, modulo 4 GiB) is never more than the truth, so the larger
  // of the two; but a file cut short ends in any four bytes, so a trailer
  // more than 4 times the ratio's figure is not believed.
  const double by_ratio = static_cast<double>(source.file_size()) * static_cast<double>(filled) /
                          static_cast<double>(consumed);
  const auto ratio_bytes = static_cast<std::uint64_t>(by_ratio);
  const std::uint64_t trailer = trailer_size(path);
  const std::uint64_t json_bytes =
      trailer <= ratio_bytes * 4 ? std::max(ratio_bytes, trailer) : ratio_bytes;
  return objects_from(sample, json_bytes);
}

}  // namespace

std::optional<std::uint64_t> estimate_dump_objects(const std::string& path) {
  auto source = open_byte_source(path);
  if (!source) return std::nullopt;
  return (*source)->compressed() ? gzip_objects(**source, path) : plain_objects(**source);
}

std::uint64_t low_load_bytes(std::uint64_t objects, LoadMode mode) {
  // Measured per object (bench/README.md, "Runs that cannot fit"): a full
  // load holds 57 (class_cache, untraced) to 74 (syn1700, traced) and peaks
  // near 90; an identity-only load adds 48-51 to a run. About three
  // quarters of the least.
  const std::uint64_t per_object = mode == LoadMode::kFull ? 60 : 36;
  return objects * per_object;
}

FitVerdict judge_fit(const std::vector<PlannedLoad>& loads, std::uint64_t headroom) {
  FitVerdict verdict;
  verdict.headroom = headroom;
  if (loads.empty()) return verdict;
  verdict.needed = kFixedBytes;
  for (const auto& load : loads) {
    const auto objects = estimate_dump_objects(load.path);
    if (!objects) continue;
    verdict.objects += *objects;
    verdict.needed += low_load_bytes(*objects, load.mode);
    // What the dominator tree and root paths keep; their peaks and the leak
    // analysis come on top.
    if (load.analysed)
      verdict.needed += analysis_kept_bytes(*objects, kDominatorsAnalysis | kRootPathsAnalysis);
  }
  verdict.fits = headroom == UINT64_MAX || verdict.needed <= headroom;
  return verdict;
}

std::string fit_refusal_message(const FitVerdict& verdict) {
  auto mib = [](std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; };
  const std::uint64_t objects = verdict.objects;
  const std::string count = objects >= 1000000
                                ? std::to_string(objects / 1000000) + "." +
                                      std::to_string(objects / 100000 % 10) + " million"
                                : std::to_string(objects / 1000) + " thousand";
  std::string text = "the dumps hold ~" + count + " objects and need at least " +
                     mib(verdict.needed) + " held at once without the cache; " +
                     mib(verdict.headroom) +
                     " is left (available memory, or what the memory cgroup's limit leaves): the "
                     "kernel would end the run part way. Run it with the cache (without "
                     "--no-cache and HEAPLEAK_NO_CACHE): each heap is then written to an image "
                     "and mapped, pages the kernel can drop. --max-memory SIZE says what this run "
                     "may take instead (a larger SIZE runs it anyway)";
  return text;
}

}  // namespace heapleak
