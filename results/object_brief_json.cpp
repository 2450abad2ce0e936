#include "results/object_brief_json.h"

#include "core/heap/naming.h"
#include "core/heap/object_key.h"

namespace heapleak::results {
namespace json = boost::json;

json::array addresses_json(const Heap& heap, const std::vector<ObjectIndex>& objects) {
  json::array out;
  out.reserve(objects.size());
  for (ObjectIndex i : objects) out.emplace_back(format_address(heap.address(i)));
  return out;
}

json::object object_brief_json(const Heap& heap, ObjectIndex i) {
  json::object out{{"address", format_address(heap.address(i))},
                   {"type", object_type_name(heap.type(i))},
                   {"class", class_display_name(heap, i)},
                   {"name", ruby_name(heap, i)},
                   {"key", object_key(heap, i)},
                   {"memsize", folded_memsize(heap, i)}};
  if (std::string_view file = heap.file(i); !file.empty()) {
    out["file"] = file;
    out["line"] = heap.line(i);
  }
  if (auto generation = heap.generation(i)) out["generation"] = *generation;
  return out;
}

json::value via_json(const EdgeName& via) {
  json::array names;
  for (const auto& name : via.names) names.emplace_back(name);
  switch (via.kind) {
    case EdgeName::Kind::kExact:
      if (via.names.size() == 1) return json::object{{"ivar", via.names.front()}};
      return json::object{{"ivars", std::move(names)}};
    case EdgeName::Kind::kCandidates:
      return json::object{{"candidates", std::move(names)}};
    case EdgeName::Kind::kNone:
      break;
  }
  return nullptr;
}

}  // namespace heapleak::results
