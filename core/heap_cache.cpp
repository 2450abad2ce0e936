#include "core/heap_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "core/checksum.h"
#include "core/file_identity.h"
#include "core/heap_image_reader.h"
#include "core/heap_image_writer.h"

namespace heapleak {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSuffix = ".hlimg";
constexpr const char* kTempMarker = ".hlimg.tmp.";

bool is_image(const std::string& name) {
  return name.size() > std::strlen(kSuffix) &&
         name.compare(name.size() - std::strlen(kSuffix), std::string::npos, kSuffix) == 0;
}
bool is_temp(const std::string& name) { return name.find(kTempMarker) != std::string::npos; }

std::string mode_tag(LoadMode mode) { return mode == LoadMode::kFull ? "full" : "ident"; }

const char* problem_word(image::ImageProblem problem) {
  switch (problem) {
    case image::ImageProblem::kStale:
      return "stale";
    case image::ImageProblem::kVersion:
      return "of another version";
    case image::ImageProblem::kTruncated:
      return "truncated";
    default:
      return "corrupt";
  }
}

struct Stat {
  std::uint64_t bytes = 0;
  std::int64_t mtime = 0;
};
std::optional<Stat> stat_of(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return Stat{static_cast<std::uint64_t>(info.st_size), static_cast<std::int64_t>(info.st_mtime)};
}

}  // namespace

std::string default_cache_dir() {
  if (const char* dir = std::getenv("HEAPLEAK_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/heapleak";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/heapleak";
  return {};
}

HeapCache::HeapCache(CacheOptions options) : options_(std::move(options)) {
  // HEAPLEAK_NO_CACHE=1 turns the default cache off (the test suite sets it);
  // a directory given explicitly still turns it on.
  if (options_.dir.empty()) {
    const char* off = std::getenv("HEAPLEAK_NO_CACHE");
    if (off && *off && std::string_view(off) != "0") options_.enabled = false;
    options_.dir = default_cache_dir();
  }
  if (options_.dir.empty()) options_.enabled = false;
  if (const char* remap = std::getenv("HEAPLEAK_CACHE_REMAP_ABOVE"); remap && *remap) {
    char* end = nullptr;
    const unsigned long long bytes = std::strtoull(remap, &end, 10);
    if (end && *end == '\0') options_.remap_above_bytes = bytes;
  }
}

std::string HeapCache::image_path(const std::string& canonical_dump, LoadMode mode) const {
  char hex[17];
  std::snprintf(
      hex, sizeof hex, "%016llx",
      static_cast<unsigned long long>(xxh64(canonical_dump.data(), canonical_dump.size())));
  return options_.dir + "/" + hex + "-" + mode_tag(mode) + kSuffix;
}

CacheLookup HeapCache::lookup(const std::string& path, LoadMode mode) const {
  CacheLookup out;
  if (!options_.enabled) return out;
  const auto started = std::chrono::steady_clock::now();
  out.use = CacheUse::kMiss;
  std::error_code ec;
  image::ImageKey key;
  key.path = fs::canonical(path, ec).string();
  struct stat info {};
  // Only regular files are cached; the loader reports anything else.
  if (ec || ::stat(key.path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return out;
  key.identity = identity_of(info);
  key.head_tail = head_tail_hash(key.path);
  key.mode = mode;

  // A full image serves an identity-only load too.
  std::vector<LoadMode> candidates{LoadMode::kFull};
  if (mode == LoadMode::kIdentityOnly) candidates.push_back(LoadMode::kIdentityOnly);
  for (LoadMode candidate : candidates) {
    const std::string image = image_path(key.path, candidate);
    image::OpenedImage opened = image::open_heap_image(image, key, [&](LoadReport& report) {
      report.path = path;
      report.cache = CacheUse::kHit;
      report.cache_warnings = out.warnings;
      report.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    });
    if (opened.problem == image::ImageProblem::kNone) {
      ::utimensat(AT_FDCWD, image.c_str(), nullptr, 0);  // last used: now (LRU)
      out.heap = std::move(opened.heap);
      out.use = CacheUse::kHit;
      return out;
    }
    if (opened.problem == image::ImageProblem::kMissing ||
        opened.problem == image::ImageProblem::kWrongMode)
      continue;
    ::unlink(image.c_str());
    out.use = CacheUse::kRebuilt;
    out.warnings.push_back("cache: the image of " + path + " was " + problem_word(opened.problem) +
                           " (" + opened.why + "): deleted and rebuilt from the dump");
  }
  // Images hold what the dumps hold (strings, file names): private, like the dumps.
  if (fs::create_directories(options_.dir, ec))
    fs::permissions(options_.dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec || ::access(options_.dir.c_str(), W_OK | X_OK) != 0) {
    out.warnings.push_back("cache: " + options_.dir + " is not writable (" +
                           (ec ? ec.message() : std::string(std::strerror(errno))) +
                           "): the heap is not cached");
    return out;
  }
  out.key = std::move(key);
  return out;
}

std::optional<std::string> HeapCache::store(const Heap& heap, const image::ImageKey& key) const {
  if (!options_.enabled) return std::nullopt;
  FileIdentity now;
  if (!file_identity(key.path, now) || !(now == key.identity) ||
      !(heap.report().identity == key.identity))
    return "cache: " + key.path + " changed while it was loaded: the heap is not cached";
  const std::uint64_t estimate = heap.bytes_used();
  if (estimate > options_.max_bytes) {
    return "cache: the image of " + key.path + " (~" + std::to_string(estimate >> 20) +
           " MiB) is larger than the cache cap (" + std::to_string(options_.max_bytes >> 20) +
           " MiB): not cached";
  }
  struct statvfs disk {};
  if (::statvfs(options_.dir.c_str(), &disk) == 0 &&
      static_cast<std::uint64_t>(disk.f_bavail) * disk.f_frsize < estimate + (64u << 20)) {
    return "cache: " + options_.dir + " is full: the heap of " + key.path + " is not cached";
  }
  if (auto error = image::write_heap_image(heap, key, image_path(key.path, key.mode))) {
    return "cache: " + *error + ": the heap is not cached";
  }
  // A full image supersedes the identity-only one of the same dump.
  if (key.mode == LoadMode::kFull) ::unlink(image_path(key.path, LoadMode::kIdentityOnly).c_str());
  evict();
  return std::nullopt;
}

std::vector<CacheEntry> HeapCache::list() const {
  std::vector<CacheEntry> out;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(options_.dir, ec)) {
    const std::string name = item.path().filename().string();
    if (!is_image(name)) continue;
    CacheEntry entry;
    entry.image_path = item.path().string();
    auto st = stat_of(entry.image_path);
    if (!st) continue;
    entry.bytes = st->bytes;
    entry.last_used = st->mtime;
    if (auto summary = image::peek_heap_image(entry.image_path)) {
      entry.dump_path = summary->key.path;
      entry.mode = summary->key.mode;
      entry.objects = summary->objects;
    } else {
      entry.readable = false;
    }
    out.push_back(std::move(entry));
  }
  std::sort(out.begin(), out.end(), [](const CacheEntry& a, const CacheEntry& b) {
    return a.last_used != b.last_used ? a.last_used > b.last_used : a.image_path < b.image_path;
  });
  return out;
}

HeapCache::Cleared HeapCache::clear() const {
  Cleared cleared;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(options_.dir, ec)) {
    const std::string name = item.path().filename().string();
    if (!is_image(name) && !is_temp(name)) continue;
    auto st = stat_of(item.path().string());
    if (::unlink(item.path().c_str()) == 0 && is_image(name)) {
      ++cleared.images;
      cleared.bytes += st ? st->bytes : 0;
    }
  }
  return cleared;
}

void HeapCache::evict() const {
  std::vector<CacheEntry> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  for (const auto& item : fs::directory_iterator(options_.dir, ec)) {
    const std::string name = item.path().filename().string();
    auto st = stat_of(item.path().string());
    if (!st) continue;
    // A writer that died leaves its temporary file: gone after a day.
    if (is_temp(name)) {
      if (now - st->mtime > 24 * 3600) ::unlink(item.path().c_str());
      continue;
    }
    if (!is_image(name)) continue;
    entries.push_back(CacheEntry{item.path().string(), {}, LoadMode::kFull, st->bytes, st->mtime});
    total += st->bytes;
  }
  std::sort(entries.begin(), entries.end(), [](const CacheEntry& a, const CacheEntry& b) {
    return a.last_used != b.last_used ? a.last_used < b.last_used : a.image_path < b.image_path;
  });
  for (const auto& entry : entries) {
    if (total <= options_.max_bytes) break;
    if (::unlink(entry.image_path.c_str()) == 0) total -= entry.bytes;
  }
}

}  // namespace heapleak
