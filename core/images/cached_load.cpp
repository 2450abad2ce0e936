#include "core/images/cached_load.h"

#include <chrono>

#include "core/heap/analysis_cost.h"
#include "core/images/heap_image_reader.h"
#include "core/loading/site_trust.h"

namespace heapleak {
namespace {

// Writes the image of a heap just parsed and opens it: the same heap, its
// columns now viewing the mapped file (page cache, droppable under memory
// pressure) instead of anonymous memory. The report is the parse's (a miss
// or rebuild, with its warnings), its time including the write. Null with a
// warning when the image cannot be written or read back.
std::shared_ptr<const Heap> write_and_remap(const HeapCache& cache, const Heap& parsed,
                                            const image::ImageKey& key,
                                            std::optional<std::string>& warning) {
  const auto started = std::chrono::steady_clock::now();
  if ((warning = cache.store(parsed, key))) return nullptr;
  const std::string image_path = cache.image_path(key.path, key.mode);
  std::uint64_t image_checksum = 0;
  image::OpenedImage opened = image::open_heap_image(
      image_path, key, [&](LoadReport& report, std::uint64_t checksum, std::size_t) {
        image_checksum = checksum;
        report = parsed.report();
        report.seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      });
  if (opened.problem != image::ImageProblem::kNone) {
    warning = "cache: the image just written for " + key.path + " could not be read back (" +
              opened.why + "): the heap stays in memory";
    return nullptr;
  }
  // Bound to its image like a hit: the analyses computed on it are kept next to it.
  opened.heap->bind_image(ImageBinding{image_path, image_checksum, kNoAnalysis});
  return std::move(opened.heap);
}

}  // namespace

namespace {

CachedLoad load_through_cache(const HeapCache* cache, const std::string& path,
                              const LoadOptions& options, const LoadControl& control) {
  if (cache == nullptr || !cache->enabled())
    return CachedLoad{load_heap(path, options, control), {}, {}};
  CacheLookup found = cache->lookup(path, options.mode);
  if (found.heap) {
    if (control.progress)
      control.progress(found.heap->report().file_bytes, found.heap->report().file_bytes);
    return CachedLoad{std::move(found.heap), {}, {}};
  }
  LoadOptions with_cache = options;
  with_cache.cache = found.use;
  with_cache.cache_warnings = std::move(found.warnings);
  CachedLoad out{load_heap(path, with_cache, control), {}, {}};
  if (!out.heap || !found.key) return out;
  if ((*out.heap)->bytes_used() > cache->remap_above_bytes()) {
    // The parsed heap is freed when this replaces it, before any analysis
    // allocates: a dump bigger than memory then pages from its image.
    if (auto mapped = write_and_remap(*cache, **out.heap, *found.key, out.warning)) {
      out.heap = std::move(mapped);
      return out;
    }
    if (out.warning) return out;  // the write failed: writing it later would too
  }
  out.pending = PendingImage{cache, *out.heap, std::move(*found.key)};
  return out;
}

}  // namespace

CachedLoad load_heap_cached(const HeapCache* cache, const std::string& path,
                            const LoadOptions& options, const LoadControl& control) {
  CachedLoad out = load_through_cache(cache, path, options, control);
  // Parsed or mapped, the same sites are believed: the manifest decides.
  if (out.heap) trust_sites_by_manifest(**out.heap);
  return out;
}

}  // namespace heapleak
