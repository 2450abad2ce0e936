// The cache directory of parsed heaps: one image per dump path and load mode
// (core/heap_image_*.h), found by the dump's key, touched when used, evicted
// least recently used first past a size cap, listed and cleared on request;
// next to an image, the analyses computed on its heap (core/images/analyses_image.h),
// which live and die with it. Failing to cache never fails a load.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/heap/heap.h"
#include "core/images/heap_image_meta.h"
#include "core/reading/load_mode.h"

namespace heapleak {

struct CacheOptions {
  bool enabled = true;
  std::string dir;  // empty: default_cache_dir()
  std::uint64_t max_bytes = std::uint64_t{10} << 30;
  // A heap parsed on a miss that holds more than this is written to its
  // image at once and the load continues on the mapped image (its parsed,
  // anonymous columns freed), so a dump bigger than memory pages from disk
  // instead of pinning its heap in RAM (core/images/cached_load.h). Smaller heaps
  // keep their parsed columns and the image is written later.
  // $HEAPLEAK_CACHE_REMAP_ABOVE (bytes) overrides it; 0 remaps every heap.
  std::uint64_t remap_above_bytes = std::uint64_t{1} << 30;
};

// $HEAPLEAK_CACHE_DIR, else $XDG_CACHE_HOME/heapleak, else ~/.cache/heapleak;
// empty when none can be found (the cache is then off). HEAPLEAK_NO_CACHE=1
// turns the cache off unless CacheOptions::dir names a directory.
std::string default_cache_dir();

// Why `dir` must not hold the cache, or nothing (safe, or not there yet:
// it is then made 0700). Anyone who may write the directory could plant a
// forged image that a later load trusts (its checksums can be recomputed),
// so, as for the daemon's socket directory, a directory owned by another
// user or writable by group or others (sticky or not: a name not yet taken
// can still be planted) is refused and the cache is off, with a warning.
std::optional<std::string> unsafe_cache_dir(const std::string& dir);

// One image, for `cache list`.
struct CacheEntry {
  std::string image_path;
  std::string dump_path;  // as keyed: canonical
  LoadMode mode = LoadMode::kFull;
  std::uint64_t bytes = 0;
  std::int64_t last_used = 0;  // seconds since the epoch (the image's mtime)
  std::uint64_t objects = 0;
  bool readable = true;  // false: damaged or of another version (rebuilt on next use)
  // A writer's temporary file: being written, or left by a writer that was
  // killed (deleted by the next eviction once its process is gone). Counted
  // in the total and the cap like an image.
  bool partial = false;
  unsigned analyses = 0;  // analyses kept next to the image (core/heap/analysis_cost.h's bits)
  std::uint64_t analyses_bytes = 0;
};

struct CacheLookup {
  std::shared_ptr<const Heap> heap;  // set on a hit
  CacheUse use = CacheUse::kOff;     // kHit, or what a load should report: kMiss/kRebuilt/kOff
  std::vector<std::string> warnings;
  std::optional<image::ImageKey> key;  // set when an image may be written after the load
};

class HeapCache {
 public:
  explicit HeapCache(CacheOptions options);

  bool enabled() const { return options_.enabled; }
  const std::string& dir() const { return options_.dir; }
  std::uint64_t max_bytes() const { return options_.max_bytes; }
  std::uint64_t remap_above_bytes() const { return options_.remap_above_bytes; }
  // unsafe_cache_dir(dir()), checked anew on each call: an unsafe directory
  // is neither read (lookups miss, list is empty) nor written nor cleared.
  std::optional<std::string> unsafe() const;

  // Maps the image of `path` loaded in `mode` (a full image also serves an
  // identity-only load), and the analyses kept next to it, seeded into the
  // heap. Images or analyses found stale, corrupt, truncated or of another
  // version are deleted and named in `warnings`.
  CacheLookup lookup(const std::string& path, LoadMode mode) const;

  // Writes the image of a heap parsed under `key` (if the dump is still that
  // file), binds the heap to it, keeps the analyses it has computed so far,
  // then evicts past the cap. A warning for people when it could not.
  std::optional<std::string> store(const Heap& heap, const image::ImageKey& key) const;
  // Keeps the analyses a heap bound to an image (a hit, or a stored miss)
  // computed since it was opened or last kept; nothing to do otherwise.
  std::optional<std::string> store_analyses(const Heap& heap) const;

  std::vector<CacheEntry> list() const;  // most recently used first
  struct Cleared {
    std::size_t images = 0;  // bytes count their analyses too
    std::uint64_t bytes = 0;
  };
  Cleared clear() const;
  // Deletes least recently used images until the total is within the cap.
  void evict() const;

  std::string image_path(const std::string& canonical_dump, LoadMode mode) const;
  // An image of `path` (either mode) is there to map, unread: a diff maps
  // such a dump instead of streaming it against B. False when the cache is
  // off or its directory unsafe.
  bool has_image(const std::string& path) const;
  static std::string analyses_path(const std::string& image_path);

 private:
  CacheOptions options_;
};

}  // namespace heapleak
