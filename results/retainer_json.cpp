#include "results/retainer_json.h"

#include "core/heap/naming.h"
#include "results/object_brief_json.h"
#include "results/path_json.h"

namespace heapleak::results {
namespace json = boost::json;

namespace {

// Says what the common retainer is when it is not the samples' container:
// a VM internal, or only where the paths of several containers meet.
std::string retainer_note(const Heap& heap, const RetainerReport& answer) {
  const ObjectIndex retainer = answer.result.retainer;
  std::string note;
  if (answer.split.split) {
    note = "the samples are held by " + std::to_string(answer.split.groups.size()) +
           " different containers (groups)";
    if (retainer != kNoObject)
      note +=
          "; the common retainer " + ruby_name(heap, retainer) + " is only where their paths meet";
  }
  if (retainer != kNoObject && is_vm_internal(heap, retainer)) {
    if (!note.empty()) note += "; ";
    note += "the common retainer is a VM internal (" + ruby_name(heap, retainer) +
            "), not an object of the program";
  }
  return note;
}

}  // namespace

json::object retainer_json(const Heap& heap, const RetainerReport& answer) {
  const RetainerResult& result = answer.result;
  json::array nodes;
  for (const auto& node : answer.graph.nodes) {
    json::object brief = object_brief_json(heap, node.index);
    brief["role"] = node_role_name(node.role);
    brief["sample"] = node.role == NodeRole::kSample;
    nodes.push_back(std::move(brief));
  }
  json::array edges;
  for (const auto& [from, to] : answer.graph.edges) {
    edges.push_back(json::object{{"from", format_address(heap.address(from))},
                                 {"to", format_address(heap.address(to))}});
  }
  json::array unknown;
  for (Address address : answer.unknown) unknown.emplace_back(format_address(address));
  json::object out{
      {"retainer", result.retainer == kNoObject
                       ? json::value(nullptr)
                       : json::value(format_address(heap.address(result.retainer)))},
      {"distance", result.distance},
      {"samples", addresses_json(heap, answer.samples)},
      {"samplesReached", result.paths.size()},
      {"unknown", std::move(unknown)},
      {"visited", result.visited},
      {"budgetExhausted", result.budget_exhausted},
      {"dot", answer.dot},
      {"nodes", std::move(nodes)},
      {"edges", std::move(edges)},
  };
  if (result.retainer != kNoObject)
    out["retainerObject"] = object_brief_json(heap, result.retainer);
  out["split"] = answer.split.split;
  if (answer.split.split) {
    json::array groups;
    for (const auto& group : answer.split.groups) {
      groups.push_back(
          json::object{{"retainer", group.container == kNoObject
                                        ? json::value(nullptr)
                                        : json::value(object_brief_json(heap, group.container))},
                       {"samples", addresses_json(heap, group.samples)}});
    }
    out["groups"] = std::move(groups);
  }
  if (std::string note = retainer_note(heap, answer); !note.empty()) out["retainerNote"] = note;
  if (!answer.retainer_root_path.path.empty()) {
    out["rootPath"] = root_path_json(heap, answer.retainer_root_path);
  }
  return out;
}

}  // namespace heapleak::results
