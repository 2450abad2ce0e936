// load_heap through the cache (core/images/heap_cache.h): a hit maps the dump's
// image instead of parsing; a miss parses and hands back the image to write,
// so the caller decides when (the daemon after answering, the CLI before it
// exits), or, for a heap larger than the cache's remap threshold, writes it
// at once and continues on the mapped image. Without a cache, or with it
// off, this is load_heap.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/images/heap_cache.h"
#include "core/loading/loader.h"

namespace heapleak {

// An image to write for a heap just parsed.
struct PendingImage {
  const HeapCache* cache = nullptr;
  std::shared_ptr<const Heap> heap;
  image::ImageKey key;
  // A warning for people when the image could not be written.
  std::optional<std::string> write() const { return cache->store(*heap, key); }
};

struct CachedLoad {
  Result<std::shared_ptr<const Heap>> heap;
  std::optional<PendingImage> pending;  // set on a miss the cache can take
  // Set when a large heap could not be written and remapped: it stays parsed
  // (in anonymous memory) and is not cached. For people, like write()'s.
  std::optional<std::string> warning;
};

CachedLoad load_heap_cached(const HeapCache* cache, const std::string& path,
                            const LoadOptions& options = {}, const LoadControl& control = {});

}  // namespace heapleak
