#include "core/images/heap_cache.h"

#include <fcntl.h>
#include <signal.h>
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
#include <mutex>
#include <string_view>

#include "core/base/checksum.h"
#include "core/base/file_identity.h"
#include "core/heap/analysis_cost.h"
#include "core/images/analyses_image.h"
#include "core/images/heap_image_reader.h"
#include "core/images/heap_image_writer.h"

namespace heapleak {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSuffix = ".hlimg";
constexpr const char* kAnalysesSuffix = ".hlana";  // the analyses of the image of the same stem

bool ends_with(const std::string& name, const char* suffix) {
  return name.size() > std::strlen(suffix) &&
         name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) == 0;
}
bool is_image(const std::string& name) { return ends_with(name, kSuffix); }
bool is_analyses(const std::string& name) { return ends_with(name, kAnalysesSuffix); }
bool is_temp(const std::string& name) {
  return name.find(".hlimg.tmp.") != std::string::npos ||
         name.find(".hlana.tmp.") != std::string::npos;
}

// Whether the writer of temporary file `name` (core/images/image_file.cpp names
// them <file>.tmp.<pid>.<n>) may still be writing it: its process is alive.
bool writer_alive(const std::string& name) {
  const auto at = name.find(".tmp.");
  if (at == std::string::npos) return false;
  const long pid = std::strtol(name.c_str() + at + 5, nullptr, 10);
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// Analyses files are written one at a time: two queries finishing at once
// on one heap would otherwise both write it.
std::mutex analyses_mutex;

// Their size when written: 4 bytes per object for root paths, 16 for the tree.
std::uint64_t analyses_estimate(const Heap& heap) {
  return heap.size() * ((heap.has_root_paths() ? 4u : 0u) + (heap.has_dominators() ? 16u : 0u));
}

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

std::optional<std::string> unsafe_cache_dir(const std::string& dir) {
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) return std::nullopt;  // made 0700 when first written
  if (!S_ISDIR(info.st_mode)) return dir + " is not a directory";
  if (info.st_uid != ::getuid()) return dir + " belongs to another user";
  if ((info.st_mode & 022) != 0) return dir + " is writable by other users";
  return std::nullopt;
}

std::optional<std::string> HeapCache::unsafe() const {
  if (!options_.enabled) return std::nullopt;
  return unsafe_cache_dir(options_.dir);
}

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

bool HeapCache::has_image(const std::string& path) const {
  if (!enabled() || unsafe()) return false;
  std::error_code error;
  const std::string canonical = std::filesystem::canonical(path, error).string();
  if (error) return false;
  for (LoadMode mode : {LoadMode::kFull, LoadMode::kIdentityOnly})
    if (::access(image_path(canonical, mode).c_str(), R_OK) == 0) return true;
  return false;
}

std::string HeapCache::analyses_path(const std::string& image_path) {
  return image_path.substr(0, image_path.size() - std::strlen(kSuffix)) + kAnalysesSuffix;
}

CacheLookup HeapCache::lookup(const std::string& path, LoadMode mode) const {
  CacheLookup out;
  if (!options_.enabled) return out;
  if (auto why = unsafe()) {
    out.warnings.push_back("cache: " + *why + ": refusing to use it, the heap is not cached");
    return out;
  }
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
    const std::string analyses_file = analyses_path(image);
    image::OpenedAnalyses analyses;
    std::uint64_t image_checksum = 0;
    auto finish = [&](LoadReport& report, std::uint64_t checksum, std::size_t root_categories) {
      image_checksum = checksum;
      analyses =
          image::open_analyses_image(analyses_file, report.objects, root_categories, checksum);
      if (analyses.problem != image::FileProblem::kNone &&
          analyses.problem != image::FileProblem::kMissing) {
        ::unlink(analyses_file.c_str());
        out.warnings.push_back(
            "cache: the analyses kept for " + path + " were " +
            (analyses.stale ? "stale" : problem_word(image::image_problem(analyses.problem))) +
            " (" + analyses.why + "): deleted, computed again when needed");
      }
      report.path = path;
      report.cache = CacheUse::kHit;
      report.cache_warnings = out.warnings;
      report.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    image::OpenedImage opened = image::open_heap_image(image, key, finish);
    if (opened.problem == image::ImageProblem::kNone) {
      ::utimensat(AT_FDCWD, image.c_str(), nullptr, 0);  // last used: now (LRU)
      if (analyses.root_paths) opened.heap->seed_root_paths(std::move(analyses.root_paths));
      if (analyses.dominators) opened.heap->seed_dominators(std::move(analyses.dominators));
      opened.heap->bind_image(ImageBinding{image, image_checksum, analyses.kept});
      out.heap = std::move(opened.heap);
      out.use = CacheUse::kHit;
      return out;
    }
    if (opened.problem == image::ImageProblem::kMissing ||
        opened.problem == image::ImageProblem::kWrongMode)
      continue;
    ::unlink(image.c_str());
    ::unlink(analyses_file.c_str());  // bound to the image: useless without it
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
  const std::string image = image_path(key.path, key.mode);
  // Analyses of the image replaced were bound to it: they go first.
  ::unlink(analyses_path(image).c_str());
  std::uint64_t checksum = 0;
  if (auto error = image::write_heap_image(heap, key, image, &checksum)) {
    return "cache: " + *error + ": the heap is not cached";
  }
  // A full image supersedes the identity-only one of the same dump.
  if (key.mode == LoadMode::kFull) {
    const std::string ident = image_path(key.path, LoadMode::kIdentityOnly);
    ::unlink(ident.c_str());
    ::unlink(analyses_path(ident).c_str());
  }
  heap.bind_image(ImageBinding{image, checksum, kNoAnalysis});
  // The CLI stores after its queries ran: their analyses go with the image.
  auto warning = store_analyses(heap);
  evict();
  return warning;
}

std::optional<std::string> HeapCache::store_analyses(const Heap& heap) const {
  if (!options_.enabled) return std::nullopt;
  std::lock_guard lock(analyses_mutex);
  const auto binding = heap.image_binding();
  if (!binding) return std::nullopt;
  const unsigned have = (heap.has_root_paths() ? kRootPathsAnalysis : kNoAnalysis) |
                        (heap.has_dominators() ? kDominatorsAnalysis : kNoAnalysis);
  if ((have & ~binding->kept) == 0) return std::nullopt;
  // The image may have been evicted or cleared since: analyses without it are useless.
  if (::access(binding->image_path.c_str(), F_OK) != 0) return std::nullopt;
  const std::uint64_t estimate = analyses_estimate(heap);
  if (estimate > options_.max_bytes) return std::nullopt;  // as for images: not worth a warning
  struct statvfs disk {};
  if (::statvfs(options_.dir.c_str(), &disk) == 0 &&
      static_cast<std::uint64_t>(disk.f_bavail) * disk.f_frsize < estimate + (64u << 20)) {
    return "cache: " + options_.dir + " is full: the analyses of " + heap.report().path +
           " are not kept";
  }
  unsigned kept = kNoAnalysis;
  if (auto error = image::write_analyses_image(heap, binding->image_checksum,
                                               analyses_path(binding->image_path), kept)) {
    return "cache: " + *error + ": the analyses are not kept";
  }
  heap.set_analyses_kept(kept);
  evict();
  return std::nullopt;
}

std::vector<CacheEntry> HeapCache::list() const {
  std::vector<CacheEntry> out;
  if (unsafe()) return out;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(options_.dir, ec)) {
    const std::string name = item.path().filename().string();
    if (is_temp(name)) {
      if (auto st = stat_of(item.path().string())) {
        CacheEntry entry{item.path().string(), {}, LoadMode::kFull, st->bytes, st->mtime};
        entry.readable = false;
        entry.partial = true;
        out.push_back(std::move(entry));
      }
      continue;
    }
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
    const std::string analyses = analyses_path(entry.image_path);
    if (auto kept = image::peek_analyses_image(analyses)) {
      entry.analyses = *kept;
      if (auto ast = stat_of(analyses)) entry.analyses_bytes = ast->bytes;
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
  if (unsafe()) return cleared;  // other users' files may be there
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(options_.dir, ec)) {
    const std::string name = item.path().filename().string();
    if (!is_image(name) && !is_analyses(name) && !is_temp(name)) continue;
    auto st = stat_of(item.path().string());
    if (::unlink(item.path().c_str()) == 0 && !is_temp(name)) {
      if (is_image(name)) ++cleared.images;
      cleared.bytes += st ? st->bytes : 0;
    }
  }
  return cleared;
}

void HeapCache::evict() const {
  if (unsafe()) return;
  std::vector<CacheEntry> entries;
  std::vector<std::pair<std::string, std::uint64_t>> analyses;
  std::uint64_t total = 0;
  std::error_code ec;
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  for (const auto& item : fs::directory_iterator(options_.dir, ec)) {
    const std::string name = item.path().filename().string();
    auto st = stat_of(item.path().string());
    if (!st) continue;
    // A writer that was killed leaves its temporary file: deleted once its
    // process is gone (or after an hour untouched, should its pid have been
    // reused). One being written counts toward the cap.
    if (is_temp(name)) {
      if (!writer_alive(name) || now - st->mtime > 3600) {
        ::unlink(item.path().c_str());
      } else {
        total += st->bytes;
      }
      continue;
    }
    if (is_analyses(name)) {
      analyses.emplace_back(item.path().string(), st->bytes);
      continue;
    }
    if (!is_image(name)) continue;
    entries.push_back(CacheEntry{item.path().string(), {}, LoadMode::kFull, st->bytes, st->mtime});
    total += st->bytes;
  }
  // An image and its analyses are one entry: used together, evicted together.
  // Analyses whose image is gone are deleted.
  for (const auto& [path, bytes] : analyses) {
    const std::string image = path.substr(0, path.size() - std::strlen(kAnalysesSuffix)) + kSuffix;
    auto owner = std::find_if(entries.begin(), entries.end(),
                              [&](const CacheEntry& e) { return e.image_path == image; });
    if (owner == entries.end()) {
      ::unlink(path.c_str());
      continue;
    }
    owner->analyses_bytes = bytes;
    total += bytes;
  }
  std::sort(entries.begin(), entries.end(), [](const CacheEntry& a, const CacheEntry& b) {
    return a.last_used != b.last_used ? a.last_used < b.last_used : a.image_path < b.image_path;
  });
  for (const auto& entry : entries) {
    if (total <= options_.max_bytes) break;
    if (::unlink(entry.image_path.c_str()) == 0) total -= entry.bytes;
    if (entry.analyses_bytes > 0 && ::unlink(analyses_path(entry.image_path).c_str()) == 0)
      total -= entry.analyses_bytes;
  }
}

}  // namespace heapleak
