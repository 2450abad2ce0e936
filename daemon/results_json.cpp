#include "daemon/results_json.h"

#include "core/object_key.h"

namespace heapleak {
namespace json = boost::json;

json::array addresses_json(const Heap& heap, const std::vector<ObjectIndex>& objects) {
  json::array out;
  out.reserve(objects.size());
  for (ObjectIndex i : objects) out.emplace_back(format_address(heap.address(i)));
  return out;
}

json::object heap_summary_json(const Heap& heap) {
  const LoadReport& report = heap.report();
  json::object roots;
  for (const auto& root : heap.roots()) roots[root.name] = root.targets.size();
  json::array broken;
  for (std::size_t k = 0; k < report.first_broken_lines.size(); ++k) {
    broken.push_back(json::object{{"line", report.first_broken_lines[k]},
                                  {"reason", report.first_broken_reasons[k]}});
  }
  const std::size_t bytes = heap.bytes_used();
  return json::object{
      {"path", report.path},
      {"gzip", report.gzip},
      {"objects", heap.size()},
      {"roots", std::move(roots)},
      {"rootRecords", report.root_records},
      {"shapes", report.shapes},
      {"references", report.references},
      {"missingReferences", report.missing_references},
      {"duplicateAddresses", report.duplicate_addresses},
      {"lines", report.lines},
      {"brokenLines", report.broken_lines},
      {"firstBrokenLines", std::move(broken)},
      {"traced", report.traced},
      {"fileBytes", report.file_bytes},
      {"streamBytes", report.stream_bytes},
      {"residentBytes", bytes},
      {"bytesPerObject", heap.size() == 0 ? 0.0 : static_cast<double>(bytes) / heap.size()},
      {"loadSeconds", report.seconds},
  };
}

json::object leak_diff_json(const Heap& target, const LeakDiff& diff) {
  json::array groups;
  for (const auto& group : diff.groups) {
    groups.push_back(json::object{{"key", group.key},
                                  {"count", group.count},
                                  {"memsize", group.memsize},
                                  {"samples", addresses_json(target, group.samples)}});
  }
  json::array warnings;
  for (const auto& warning : diff.warnings) warnings.emplace_back(warning);
  return json::object{
      {"threeWay", diff.three_way},
      {"rule", diff.rule},
      {"compacted", diff.compacted},
      {"baselineSurvival", diff.baseline_survival},
      {"laterSurvival", diff.later_survival},
      {"warnings", std::move(warnings)},
      {"groups", std::move(groups)},
      {"total", json::object{{"count", diff.total_count}, {"memsize", diff.total_memsize}}},
  };
}

json::object object_brief_json(const Heap& heap, ObjectIndex i) {
  json::object out{{"address", format_address(heap.address(i))},
                   {"type", object_type_name(heap.type(i))},
                   {"class", class_display_name(heap, i)},
                   {"key", object_key(heap, i)},
                   {"memsize", heap.memsize(i)}};
  if (std::string_view file = heap.file(i); !file.empty()) {
    out["file"] = file;
    out["line"] = heap.line(i);
  }
  if (auto generation = heap.generation(i)) out["generation"] = *generation;
  return out;
}

json::object root_path_json(const Heap& heap, const RootPath& path) {
  json::array objects;
  for (ObjectIndex i : path.path) objects.push_back(object_brief_json(heap, i));
  return json::object{{"root", path.root},
                      {"path", addresses_json(heap, path.path)},
                      {"objects", std::move(objects)}};
}

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
      {"retainer", result.retainer == kNoObject ? json::value(nullptr)
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
  if (result.retainer != kNoObject) out["retainerObject"] = object_brief_json(heap, result.retainer);
  if (!answer.retainer_root_path.path.empty()) {
    out["rootPath"] = root_path_json(heap, answer.retainer_root_path);
  }
  return out;
}

}  // namespace heapleak
