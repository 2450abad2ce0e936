#include "results/owner_json.h"

#include "core/heap/ivar_names.h"
#include "core/heap/naming.h"
#include "core/reports/dot_graph.h"
#include "results/object_brief_json.h"

namespace heapleak::results {
namespace json = boost::json;

json::object owner_brief_json(const Heap& heap, const Owner& owner) {
  if (owner.object == kNoObject)
    return json::object{{"address", nullptr}, {"objects", owner.objects}};
  json::object out = object_brief_json(heap, owner.object);
  out["retained"] = owner.retained;
  out["objects"] = owner.objects;
  return out;
}

json::array path_tree_json(const Heap& heap, const PathTreeNode& node) {
  json::array children;
  for (const auto& child : node.children) {
    json::object item{{"key", child.key}, {"count", child.count}};
    if (child.example != kNoObject) item["example"] = format_address(heap.address(child.example));
    item["children"] = path_tree_json(heap, child);
    children.push_back(std::move(item));
  }
  return children;
}

json::object owner_json(const Heap& heap, const OwnerReport& report) {
  json::array owners;
  for (const auto& owner : report.owners) owners.push_back(owner_brief_json(heap, owner));
  // The owner's path in Ruby's words, so a client prints it without asking
  // for each hop's name (pathNames[0] names the root, as pathToRoot's).
  json::array names;
  if (!report.owner_path.path.empty()) {
    for (auto& name : path_names(heap, report.owner_path.root, report.owner_path.path,
                                 path_vias(heap, report.owner_path.path)))
      names.emplace_back(name);
  }
  return json::object{
      {"owner", report.owner.object == kNoObject
                    ? json::value(nullptr)
                    : json::value(owner_brief_json(heap, report.owner))},
      {"owners", std::move(owners)},
      {"objects", report.set.size()},
      {"unreachable", addresses_json(heap, report.unreachable)},
      {"root", report.owner_path.root},
      {"path", addresses_json(heap, report.owner_path.path)},
      {"pathNames", std::move(names)},
      {"paths", json::object{{"key", report.merged_paths.key},
                             {"count", report.merged_paths.count},
                             {"children", path_tree_json(heap, report.merged_paths)}}},
      {"dot", merged_paths_dot(report.merged_paths)},
  };
}

}  // namespace heapleak::results
