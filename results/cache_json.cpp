#include "results/cache_json.h"

#include <ctime>

#include "core/heap/analysis_cost.h"

namespace heapleak::results {
namespace json = boost::json;

std::string utc_time_text(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  ::gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

json::object cache_list_json(const HeapCache& cache, const std::vector<CacheEntry>& entries) {
  json::array images;
  std::uint64_t total = 0;
  for (const auto& entry : entries) {
    total += entry.bytes + entry.analyses_bytes;
    json::array analyses;
    if (entry.analyses & kRootPathsAnalysis) analyses.push_back("rootPaths");
    if (entry.analyses & kDominatorsAnalysis) analyses.push_back("dominators");
    images.push_back(json::object{
        {"image", entry.image_path},
        {"dump", entry.dump_path},
        {"mode", entry.mode == LoadMode::kFull ? "full" : "identityOnly"},
        {"bytes", entry.bytes},
        {"lastUsed", utc_time_text(entry.last_used)},
        {"objects", entry.objects},
        {"readable", entry.readable},
        {"partial", entry.partial},
        {"analyses", std::move(analyses)},
        {"analysesBytes", entry.analyses_bytes},
    });
  }
  return json::object{{"dir", cache.dir()},
                      {"enabled", cache.enabled() && !cache.unsafe()},
                      {"maxBytes", cache.max_bytes()},
                      {"totalBytes", total},
                      {"images", std::move(images)}};
}

json::object cache_clear_json(const HeapCache& cache, const HeapCache::Cleared& cleared) {
  return json::object{{"dir", cache.dir()}, {"images", cleared.images}, {"bytes", cleared.bytes}};
}

}  // namespace heapleak::results
