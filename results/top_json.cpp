#include "results/top_json.h"

#include "core/diagnosis/ownership.h"
#include "core/graph/dominators.h"
#include "results/object_brief_json.h"

namespace heapleak::results {
namespace json = boost::json;

namespace {

json::value dominator_json(const Heap& heap, ObjectIndex idom) {
  if (idom == kNoObject) return nullptr;
  if (idom == DominatorTree::kSuperRoot) return "ROOT";
  return json::value(format_address(heap.address(idom)));
}

}  // namespace

json::object retained_json(const Heap& heap, ObjectIndex i) {
  const DominatorTree& tree = heap.dominators();
  json::object out = object_brief_json(heap, i);
  out["reachable"] = tree.reachable(i);
  out["retained"] = tree.retained(i);
  out["dominator"] = dominator_json(heap, tree.idom(i));
  return out;
}

json::object top_retainers_json(const Heap& heap, std::size_t limit, bool by_class) {
  const DominatorTree& tree = heap.dominators();
  json::object out{{"reachable", tree.reachable_count()},
                   {"unreachable", json::object{{"count", tree.unreachable_count()},
                                                {"memsize", tree.unreachable_bytes()}}}};
  if (by_class) {
    json::array classes;
    for (const auto& entry : top_retainers_by_class(heap, limit)) {
      classes.push_back(
          json::object{{"key", entry.key}, {"count", entry.count}, {"retained", entry.retained}});
    }
    out["classes"] = std::move(classes);
  } else {
    json::array retainers;
    for (const auto& entry : top_retainers(heap, limit)) {
      json::object item = object_brief_json(heap, entry.object);
      item["retained"] = entry.retained;
      item["dominator"] = dominator_json(heap, tree.idom(entry.object));
      retainers.push_back(std::move(item));
    }
    out["retainers"] = std::move(retainers);
  }
  return out;
}

}  // namespace heapleak::results
