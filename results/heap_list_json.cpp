#include "results/heap_list_json.h"

#include "results/heap_summary_json.h"

namespace heapleak::results {
namespace json = boost::json;

json::object loaded_heap_json(const NamedHeap& entry) {
  json::object out = heap_summary_json(*entry.heap);
  out["heap"] = entry.id;
  out["name"] = entry.name;
  out["path"] = entry.path;
  return out;
}

json::object heap_list_json(const std::vector<NamedHeap>& heaps,
                            const std::vector<std::string>& loading, std::uint64_t used_bytes,
                            std::uint64_t max_bytes) {
  json::array listed;
  for (const auto& entry : heaps) {
    listed.push_back(json::object{
        {"heap", entry.id},
        {"name", entry.name},
        {"path", entry.path},
        {"objects", entry.heap->size()},
        {"residentBytes",
         entry.heap->bytes_used() + entry.heap->analyses_bytes_used() + entry.kept_bytes},
        {"analysisBytes", entry.heap->analyses_bytes_used()},
        {"keptBytes", entry.kept_bytes},
        {"loadSeconds", entry.heap->report().seconds},
        {"cache", cache_use_name(entry.heap->report().cache)},
        {"traced", entry.heap->report().traced},
        // Loaded identity-only (a diff's A or C): a method that needs
        // references loads it again with them.
        {"references", entry.heap->has_edges()}});
  }
  json::array names;
  for (const auto& name : loading) names.push_back(json::value(name));
  return json::object{{"heaps", std::move(listed)},
                      {"loading", std::move(names)},
                      {"usedBytes", used_bytes},
                      {"maxBytes", max_bytes}};
}

json::object unloaded_heap_json(const NamedHeap& entry) {
  return json::object{{"heap", entry.id}, {"name", entry.name}, {"unloaded", true}};
}

}  // namespace heapleak::results
