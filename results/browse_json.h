// The browse shapes: one object with its record read back from the dump
// (`object`), and one page of its referrers or references.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <span>

#include "core/heap/heap.h"

namespace heapleak::results {

// object_brief_json plus referencesCount, referrersCount, method, and the
// record parsed (`record`) or why not (`recordError` with `recordErrorReason`, `recordText`).
boost::json::object object_json(const Heap& heap, ObjectIndex i);
// {address, total, offset, items: [brief...]}: edges[offset, offset + limit).
boost::json::object edge_page_json(const Heap& heap, ObjectIndex i,
                                   std::span<const ObjectIndex> edges, std::size_t offset,
                                   std::size_t limit);

}  // namespace heapleak::results
