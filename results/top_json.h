// topRetainers' answer (`heapleak top --json`): what keeps the most memory
// alive, by object or by class; and `retained`'s: one object's retained
// bytes and dominator. Both read the heap's dominator tree.
#pragma once

#include <boost/json.hpp>
#include <cstddef>

#include "core/heap/heap.h"

namespace heapleak::results {

boost::json::object retained_json(const Heap& heap, ObjectIndex i);
boost::json::object top_retainers_json(const Heap& heap, std::size_t limit, bool by_class);

}  // namespace heapleak::results
