// The text half of each MCP tool result: what a model reads. The CLIs' text
// (results/text/render.h, plain) plus MCP's own: a hint when more rows are
// available, and the warnings after the text. Each takes the tool's
// structuredContent (mcp_tools.cpp).
#pragma once

#include <boost/json/object.hpp>
#include <string>

namespace heapleak::daemon {

std::string mcp_loaded_text(const boost::json::object& loaded);      // loadHeap
std::string mcp_heaps_text(const boost::json::object& heaps);        // listHeaps
std::string mcp_unloaded_text(const boost::json::object& unloaded);  // unloadHeap
std::string mcp_leaks_text(const boost::json::object& explain);      // explain, paged
std::string mcp_stats_text(const boost::json::object& stats);        // stats, paged
std::string mcp_retainer_text(const boost::json::object& root);      // root
std::string mcp_owner_text(const boost::json::object& owner);        // owner
std::string mcp_path_text(const boost::json::object& path);          // pathToRoot
// {object, referrers, references}
std::string mcp_object_text(const boost::json::object& inspected);
std::string mcp_top_text(const boost::json::object& top);  // topRetainers, paged
// write_report: where the page went, its link and what it shows.
std::string mcp_report_text(const boost::json::object& written);

}  // namespace heapleak::daemon
