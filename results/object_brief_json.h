// The pieces every result shape names objects with: an object's brief
// (address, type, class, Ruby name, key, memsize, allocation site), a list of
// addresses, and how a path hop is held (via). Field names are the wire's
// camelCase; addresses are "0x..".
#pragma once

#include <boost/json.hpp>
#include <vector>

#include "core/heap/heap.h"
#include "core/heap/ivar_names.h"

namespace heapleak::results {

boost::json::object object_brief_json(const Heap& heap, ObjectIndex i);
boost::json::array addresses_json(const Heap& heap, const std::vector<ObjectIndex>& objects);
// How a path object is held by the one before it: {"ivar": "@cache"},
// {"ivars": ["@a", "@c"]} (the same object in several), {"candidates": [...]};
// null when the dump does not say.
boost::json::value via_json(const EdgeName& via);

}  // namespace heapleak::results
