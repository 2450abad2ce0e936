// owner's answer (`heapleak owner --json`): the set's dominator with its
// retained bytes (or one owner per part), its path from a root, and the
// members' merged shortest paths; and an owner's brief, which explain's rows
// reuse.
#pragma once

#include <boost/json.hpp>

#include "core/diagnosis/ownership.h"
#include "core/heap/heap.h"

namespace heapleak::results {

boost::json::object owner_json(const Heap& heap, const OwnerReport& report);
// An owner as the results list it: its object's brief with `retained` and
// `objects` (how many of the set it owns); address null for the super-root.
boost::json::object owner_brief_json(const Heap& heap, const Owner& owner);
boost::json::array path_tree_json(const Heap& heap, const PathTreeNode& node);

}  // namespace heapleak::results
