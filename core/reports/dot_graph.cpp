#include "core/reports/dot_graph.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/diagnosis/ownership.h"
#include "core/heap/ivar_names.h"
#include "core/heap/naming.h"
#include "core/heap/object_key.h"

namespace heapleak {
namespace {

// A DOT string's content. Graphviz copies label bytes into its SVG as they
// are, and XML forbids control characters and U+FFFE/U+FFFF: those (dump
// strings, user data) are written visibly as \xNN / \uFFFE instead, so
// the SVG stays well-formed.
std::string escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\\\x";  // a backslash, shown
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (c == 0xEF && text.substr(k + 1, 1) == "\xBF" && k + 2 < text.size() &&
               (static_cast<unsigned char>(text[k + 2]) == 0xBE ||
                static_cast<unsigned char>(text[k + 2]) == 0xBF)) {
      out += static_cast<unsigned char>(text[k + 2]) == 0xBE ? "\\\\uFFFE" : "\\\\uFFFF";
      k += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string node_label(const Heap& heap, ObjectIndex i) {
  std::string label = format_address(heap.address(i)) + "\\n" + escape(object_key(heap, i));
  if (std::string site = allocation_site(heap, i); !site.empty()) label += "\\n" + escape(site);
  return label;
}

}  // namespace

const char* node_role_name(NodeRole role) {
  switch (role) {
    case NodeRole::kSample:
      return "sample";
    case NodeRole::kRetainer:
      return "retainer";
    case NodeRole::kPath:
      return "path";
    case NodeRole::kRootPath:
      return "rootPath";
  }
  return "path";
}

RetainerGraph build_retainer_graph(const Heap& heap, const std::vector<ObjectIndex>& samples,
                                   const RetainerResult& result,
                                   const RootPath* retainer_root_path) {
  RetainerGraph graph;
  std::map<ObjectIndex, NodeRole> roles;  // the strongest role wins: sample > retainer > path
  auto assign = [&](ObjectIndex i, NodeRole role) {
    auto [it, inserted] = roles.emplace(i, role);
    if (!inserted && static_cast<int>(role) < static_cast<int>(it->second)) it->second = role;
  };
  std::set<std::pair<ObjectIndex, ObjectIndex>> edges;
  for (ObjectIndex s : samples) assign(s, NodeRole::kSample);
  if (result.retainer != kNoObject) assign(result.retainer, NodeRole::kRetainer);
  for (const auto& raw : result.paths) {
    // A 4.0 IMEMO:fields object is drawn as its owner (the root path has none).
    std::vector<ObjectIndex> path;
    for (ObjectIndex i : raw) {
      const ObjectIndex shown = fold_fields(heap, i);
      if (path.empty() || path.back() != shown) path.push_back(shown);
    }
    for (std::size_t k = 0; k < path.size(); ++k) {
      assign(path[k], NodeRole::kPath);
      if (k + 1 < path.size()) edges.emplace(path[k], path[k + 1]);
    }
  }
  if (retainer_root_path && !retainer_root_path->path.empty()) {
    graph.root = retainer_root_path->root;
    graph.root_target = retainer_root_path->path.front();
    const auto& path = retainer_root_path->path;
    for (std::size_t k = 0; k < path.size(); ++k) {
      assign(path[k], NodeRole::kRootPath);
      if (k + 1 < path.size()) edges.emplace(path[k], path[k + 1]);
    }
  }
  for (const auto& [index, role] : roles) graph.nodes.push_back(GraphNode{index, role});
  std::stable_sort(graph.nodes.begin(), graph.nodes.end(),
                   [](const GraphNode& a, const GraphNode& b) {
                     return static_cast<int>(a.role) < static_cast<int>(b.role);
                   });
  graph.edges.assign(edges.begin(), edges.end());
  return graph;
}

std::string to_dot(const Heap& heap, const RetainerGraph& graph,
                   const std::vector<std::string>& comments) {
  std::string out;
  for (const auto& line : comments) out += "# " + line + "\n";
  out += "digraph leak {\nrankdir=RL\nnode [shape=box, fontname=\"monospace\", fontsize=10];\n";
  out += "# sample addresses\nsubgraph sources {\nstyle=filled; color=lightgrey;\n";
  for (const auto& node : graph.nodes) {
    if (node.role != NodeRole::kSample) continue;
    out += "\"" + format_address(heap.address(node.index)) +
           "\" [color=blue, fontcolor=blue, label=\"" + node_label(heap, node.index) + "\"];\n";
  }
  out += "}\n# retainer and the objects on its paths to the samples\n";
  for (const auto& node : graph.nodes) {
    if (node.role == NodeRole::kSample) continue;
    std::string attributes;
    if (node.role == NodeRole::kRetainer) attributes = "color=red, penwidth=2, ";
    if (node.role == NodeRole::kRootPath) attributes = "color=grey40, style=dashed, ";
    out += "\"" + format_address(heap.address(node.index)) + "\" [" + attributes + "label=\"" +
           node_label(heap, node.index) + "\"];\n";
  }
  out += "# links (holder -> held)\n";
  for (const auto& [from, to] : graph.edges) {
    // Labelled with the ivar that holds the reference when the dump names it.
    const std::string via = edge_suffix(ivar_holding(heap, from, to));
    out += "\"" + format_address(heap.address(from)) + "\" -> \"" +
           format_address(heap.address(to)) + "\"" +
           (via.empty() ? "" : " [label=\"" + escape(via.substr(1)) + "\"]") + ";\n";
  }
  if (graph.root_target != kNoObject) {
    const std::string root_node = "ROOT:" + escape(graph.root);
    out += "\"" + root_node +
           "\" [shape=ellipse, style=filled, fillcolor=lightgrey, label=\"GC root\\n" +
           escape(graph.root) + "\"];\n\"" + root_node + "\" -> \"" +
           format_address(heap.address(graph.root_target)) + "\";\n";
  }
  out += "}\n";
  return out;
}

std::string merged_paths_dot(const PathTreeNode& tree, std::size_t max_depth) {
  std::string out =
      "digraph owner {\nrankdir=LR\nnode [shape=box, fontname=\"monospace\", fontsize=10];\n";
  std::size_t next_id = 0;
  // Iterative walk: (node, its dot id, depth).
  struct Item {
    const PathTreeNode* node;
    std::size_t id;
    std::size_t depth;
  };
  std::vector<Item> stack{{&tree, next_id++, 0}};
  out += "n0 [label=\"" + escape(tree.key) + "\\n" + std::to_string(tree.count) +
         " objects\", style=filled, fillcolor=lightgrey];\n";
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    if (item.depth >= max_depth) continue;
    for (auto it = item.node->children.rbegin(); it != item.node->children.rend(); ++it) {
      const std::size_t id = next_id++;
      const bool leaf = it->children.empty();
      out += "n" + std::to_string(id) + " [label=\"" + escape(it->key) + "\\n" +
             std::to_string(it->count) + (leaf ? "\", color=blue, fontcolor=blue];\n" : "\"];\n");
      out += "n" + std::to_string(item.id) + " -> n" + std::to_string(id) + ";\n";
      stack.push_back(Item{&*it, id, item.depth + 1});
    }
  }
  return out + "}\n";
}

}  // namespace heapleak
