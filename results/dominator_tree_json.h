// The `dominatorTree` result shape: one dominator subtree as nested nodes
// `{address, type, class, name, key, memsize, retained, childCount?,
// other?, children?}`, the super-root as `{address: "ROOT", name: "GC
// roots"}`. Shared by heapleakd and any one-shot printer.
#pragma once

#include <boost/json.hpp>

#include "core/graph/dominator_subtree.h"
#include "core/heap/heap.h"

namespace heapleak::results {

boost::json::object dominator_subtree_json(const Heap& heap, const DominatorSubtreeNode& node);

}  // namespace heapleak::results
