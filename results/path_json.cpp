#include "results/path_json.h"

#include "core/heap/ivar_names.h"
#include "core/heap/naming.h"
#include "results/object_brief_json.h"

namespace heapleak::results {
namespace json = boost::json;

json::object root_path_json(const Heap& heap, const RootPath& path) {
  const std::vector<EdgeName> vias = path_vias(heap, path.path);
  json::array objects;
  for (std::size_t k = 0; k < path.path.size(); ++k) {
    json::object brief = object_brief_json(heap, path.path[k]);
    if (json::value via = via_json(vias[k]); !via.is_null()) brief["via"] = std::move(via);
    objects.push_back(std::move(brief));
  }
  json::array names;
  for (auto& name : path_names(heap, path.root, path.path, vias)) names.emplace_back(name);
  json::object out{{"root", path.root},
                   {"path", addresses_json(heap, path.path)},
                   {"pathNames", std::move(names)},
                   {"objects", std::move(objects)}};
  if (!path.root_via.empty()) {
    out["rootVia"] = addresses_json(heap, path.root_via);
    // Their names, as a path's text says them (ROOT vm (through DATA:VM/pin_array_list)).
    json::array via_names;
    for (ObjectIndex i : path.root_via) via_names.emplace_back(ruby_name(heap, i));
    out["rootViaNames"] = std::move(via_names);
  }
  return out;
}

}  // namespace heapleak::results
