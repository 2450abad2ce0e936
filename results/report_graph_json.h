// A leak row's retainer graph as a report page draws it: the graph `root`
// draws (core/reports/dot_graph.h: samples, their nearest common retainer,
// the paths between, the retainer's path from its GC root), slimmed to what
// the picture shows: each node's role and its label lines (address, Ruby
// name, allocation site), escaped (terminal_safe.h), and the edges.
#pragma once

#include <boost/json/object.hpp>

#include "core/heap/heap.h"
#include "core/reports/retainer_report.h"

namespace heapleak::results {

// {nodes: [{id, role, label: [line, ...]}], edges: [[from, to], ...] (node
// indexes, holder -> held), root: "vm" or "" (a GC root node is the first
// node then, role "root"), retainer: its node index or -1}.
boost::json::object report_graph_json(const Heap& heap, const RetainerReport& report);

}  // namespace heapleak::results
