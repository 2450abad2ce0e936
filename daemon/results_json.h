// The JSON shapes of core results: what heapleakd answers on the wire and
// what the one-shot `heapleak --json` prints, from one place so the two can
// never disagree. Field names are the wire's camelCase; addresses are "0x..".
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "core/heap.h"
#include "core/leak_diff.h"
#include "core/retainer_report.h"
#include "core/root_paths.h"

namespace heapleak {

boost::json::object heap_summary_json(const Heap& heap);
boost::json::object leak_diff_json(const Heap& target, const LeakDiff& diff);
boost::json::object object_brief_json(const Heap& heap, ObjectIndex i);
boost::json::array addresses_json(const Heap& heap, const std::vector<ObjectIndex>& objects);

boost::json::object retainer_json(const Heap& heap, const RetainerReport& report);
boost::json::object root_path_json(const Heap& heap, const RootPath& path);

}  // namespace heapleak
