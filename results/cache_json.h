// The cache's shapes (core/heap_cache.h), shared by `heapleak cache` and the
// daemon's cacheList and cacheClear: what the cache holds, and what a clear
// removed.
#pragma once

#include <boost/json.hpp>
#include <vector>

#include "core/images/heap_cache.h"

namespace heapleak::results {

// {dir, enabled, maxBytes, totalBytes, images: [{image, dump, mode, bytes,
//  lastUsed, objects, readable}]}, most recently used first.
boost::json::object cache_list_json(const HeapCache& cache, const std::vector<CacheEntry>& entries);
// {dir, images, bytes}: what was deleted.
boost::json::object cache_clear_json(const HeapCache& cache, const HeapCache::Cleared& cleared);
// "2026-12-03T12:20:05Z"
std::string utc_time_text(std::int64_t seconds);

}  // namespace heapleak::results
