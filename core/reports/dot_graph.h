// The retainer graph drawn as Graphviz dot in the seed's style: rankdir=RL,
// samples in blue, labels with address, type/class and file:line; the
// retainer in red and, when known, its path from a GC root in grey. Node and
// edge order is stable (by role, then address) so outputs can be diffed.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/graph/common_retainer.h"
#include "core/graph/root_paths.h"
#include "core/heap/heap.h"

namespace heapleak {

enum class NodeRole { kSample, kRetainer, kPath, kRootPath };

struct GraphNode {
  ObjectIndex index;
  NodeRole role;
};

struct RetainerGraph {
  std::vector<GraphNode> nodes;
  std::vector<std::pair<ObjectIndex, ObjectIndex>> edges;  // holder -> held
  std::string root;                     // ROOT category above the root path, empty when none
  ObjectIndex root_target = kNoObject;  // first object of the root path
};

const char* node_role_name(NodeRole role);

RetainerGraph build_retainer_graph(const Heap& heap, const std::vector<ObjectIndex>& samples,
                                   const RetainerResult& result,
                                   const RootPath* retainer_root_path);

std::string to_dot(const Heap& heap, const RetainerGraph& graph,
                   const std::vector<std::string>& comments);

struct PathTreeNode;

// MAT's "merge shortest paths" as dot: one node per class key at each depth
// of the paths from the GC roots, labelled with how many objects pass there.
std::string merged_paths_dot(const PathTreeNode& tree, std::size_t max_depth = 12);

}  // namespace heapleak
