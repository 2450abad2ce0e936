#include "results/report_graph_json.h"

#include <boost/json/array.hpp>
#include <cstdint>
#include <unordered_map>

#include "core/heap/naming.h"
#include "results/text/terminal_safe.h"

namespace heapleak::results {
namespace json = boost::json;

json::object report_graph_json(const Heap& heap, const RetainerReport& report) {
  const RetainerGraph& graph = report.graph;
  json::array nodes;
  std::unordered_map<ObjectIndex, std::int64_t> index_of;
  if (!graph.root.empty()) {
    nodes.push_back(json::object{{"id", "ROOT " + text::shown(graph.root)},
                                 {"role", "root"},
                                 {"label", json::array{"GC root", text::shown(graph.root)}}});
  }
  std::int64_t retainer = -1;
  for (const GraphNode& node : graph.nodes) {
    json::array label{format_address(heap.address(node.index)),
                      text::shown(ruby_name(heap, node.index))};
    if (std::string_view file = heap.file(node.index); !file.empty())
      label.emplace_back(text::shown(file) + ":" + std::to_string(heap.line(node.index)));
    index_of[node.index] = static_cast<std::int64_t>(nodes.size());
    if (node.role == NodeRole::kRetainer) retainer = static_cast<std::int64_t>(nodes.size());
    nodes.push_back(json::object{{"id", format_address(heap.address(node.index))},
                                 {"role", node_role_name(node.role)},
                                 {"label", std::move(label)}});
  }
  json::array edges;
  if (!graph.root.empty() && index_of.contains(graph.root_target))
    edges.push_back(json::array{0, index_of[graph.root_target]});
  for (const auto& [from, to] : graph.edges) {
    const auto a = index_of.find(from);
    const auto b = index_of.find(to);
    if (a != index_of.end() && b != index_of.end())
      edges.push_back(json::array{a->second, b->second});
  }
  return {{"nodes", std::move(nodes)},
          {"edges", std::move(edges)},
          {"root", text::shown(graph.root)},
          {"retainer", retainer}};
}

}  // namespace heapleak::results
