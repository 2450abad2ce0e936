#include "core/cached_load.h"

namespace heapleak {

CachedLoad load_heap_cached(const HeapCache* cache, const std::string& path,
                            const LoadOptions& options, const LoadControl& control) {
  if (cache == nullptr || !cache->enabled())
    return CachedLoad{load_heap(path, options, control), {}};
  CacheLookup found = cache->lookup(path, options.mode);
  if (found.heap) {
    if (control.progress)
      control.progress(found.heap->report().file_bytes, found.heap->report().file_bytes);
    return CachedLoad{std::move(found.heap), {}};
  }
  LoadOptions with_cache = options;
  with_cache.cache = found.use;
  with_cache.cache_warnings = std::move(found.warnings);
  CachedLoad out{load_heap(path, with_cache, control), {}};
  if (out.heap && found.key) out.pending = PendingImage{cache, *out.heap, std::move(*found.key)};
  return out;
}

}  // namespace heapleak
