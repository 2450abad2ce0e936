// The heap store's shapes: a loaded heap (loadHeap's reply), a listed heap
// and the listHeaps envelope, an unloaded heap. results/ knows no store: the
// daemon passes each heap's id, name and path.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/heap/heap.h"

namespace heapleak::results {

struct NamedHeap {
  std::string id;  // h1, h2, ...
  std::string name;
  std::string path;
  const Heap* heap = nullptr;
  // Kept beside the heap for it (heapleakd: what the dumps streamed
  // against it said), counted in its residentBytes.
  std::uint64_t kept_bytes = 0;
};

// heap_summary_json plus heap, name, path.
boost::json::object loaded_heap_json(const NamedHeap& entry);
// {heaps: [{heap, name, path, objects, residentBytes (columns and cached analyses),
//          analysisBytes (the analyses alone), loadSeconds, traced}],
//  loading: [names], usedBytes, maxBytes}
boost::json::object heap_list_json(const std::vector<NamedHeap>& heaps,
                                   const std::vector<std::string>& loading,
                                   std::uint64_t used_bytes, std::uint64_t max_bytes);
// {heap, name, unloaded: true}
boost::json::object unloaded_heap_json(const NamedHeap& entry);

}  // namespace heapleak::results
