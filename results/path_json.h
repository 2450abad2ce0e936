// pathToRoot's answer (`heapleak path --json`): a shortest path from a GC
// root to an object, each hop's brief and how it is held, in Ruby's words.
#pragma once

#include <boost/json.hpp>

#include "core/graph/root_paths.h"
#include "core/heap/heap.h"

namespace heapleak::results {

boost::json::object root_path_json(const Heap& heap, const RootPath& path);

}  // namespace heapleak::results
