// root's answer (`heapleak root --format json`): the nearest common retainer
// of the samples, its graph and dot text, the split into containers, and the
// retainer's own path from a root.
#pragma once

#include <boost/json.hpp>

#include "core/heap/heap.h"
#include "core/reports/retainer_report.h"

namespace heapleak::results {

boost::json::object retainer_json(const Heap& heap, const RetainerReport& report);

}  // namespace heapleak::results
