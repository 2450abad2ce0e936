#include "results/dominator_tree_json.h"

#include "results/object_brief_json.h"

namespace heapleak::results {
namespace json = boost::json;

json::object dominator_subtree_json(const Heap& heap, const DominatorSubtreeNode& node) {
  json::object out;
  if (node.object == DominatorTree::kSuperRoot) {
    out = json::object{{"address", "ROOT"},
                       {"type", "ROOT"},
                       {"name", "GC roots"},
                       {"key", "GC roots"},
                       {"memsize", 0}};
  } else {
    out = object_brief_json(heap, node.object);
  }
  out["retained"] = node.retained;
  // Children absent: not collected (deeper than asked); ask again from here.
  if (node.expanded) {
    out["childCount"] = node.child_count;
    if (node.other_count > 0) {
      out["other"] = json::object{{"count", node.other_count}, {"retained", node.other_retained}};
    }
    json::array children;
    children.reserve(node.children.size());
    for (const auto& child : node.children) children.push_back(dominator_subtree_json(heap, child));
    out["children"] = std::move(children);
  }
  return out;
}

}  // namespace heapleak::results
