// What a report page draws, as one JSON value: explain's document as every
// other surface prints it (one voice), the cards' words (report_cards.h),
// each leak row's retainer graph (report_graph_json.h) and the dumps it was
// read from (file, when taken, objects, traced). report_html.h embeds it once.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace heapleak::results {

struct ReportDump {
  std::string path;
  std::string dumped_at;  // ISO 8601 UTC, "" when unknown
  bool time_from_manifest = false;
  std::uint64_t objects = 0;
  bool traced = false;
};

// `graphs[k]` is the graph of explain's leaks[k] (null when it has none).
boost::json::object report_data(const boost::json::object& explain,
                                const std::vector<ReportDump>& dumps, boost::json::array graphs,
                                std::string_view version);

}  // namespace heapleak::results
