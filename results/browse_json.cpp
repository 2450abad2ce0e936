#include "results/browse_json.h"

#include <algorithm>

#include "core/heap/record_reader.h"
#include "results/object_brief_json.h"

namespace heapleak::results {
namespace json = boost::json;

json::object object_json(const Heap& heap, ObjectIndex i) {
  json::object out = object_brief_json(heap, i);
  out["referencesCount"] = heap.references(i).size();
  out["referrersCount"] = heap.referrers(i).size();
  if (auto method = heap.method(i); !method.empty()) out["method"] = method;
  auto text = read_record_text(heap, i);
  if (!text) {
    out["recordError"] = text.error().message;
    out["recordErrorReason"] = reason_name(text.error().reason);  // dumpChanged, notReadable...
    return out;
  }
  boost::system::error_code error;
  json::value record = json::parse(*text, error);
  if (error) {
    out["recordError"] = "the record does not parse as JSON: " + error.message();
    out["recordText"] = *text;
  } else {
    out["record"] = std::move(record);
  }
  return out;
}

json::object edge_page_json(const Heap& heap, ObjectIndex i, std::span<const ObjectIndex> edges,
                            std::size_t offset, std::size_t limit) {
  json::array items;
  const std::size_t begin = std::min(offset, edges.size());
  const std::size_t end = begin + std::min(limit, edges.size() - begin);  // no overflow
  for (std::size_t k = begin; k < end; ++k) items.push_back(object_brief_json(heap, edges[k]));
  return json::object{{"address", format_address(heap.address(i))},
                      {"total", edges.size()},
                      {"offset", begin},
                      {"items", std::move(items)}};
}

}  // namespace heapleak::results
