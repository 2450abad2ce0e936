#include "results/report_data.h"

#include "results/report_cards.h"
#include "results/text/terminal_safe.h"

namespace heapleak::results {
namespace json = boost::json;

json::object report_data(const json::object& explain, const std::vector<ReportDump>& dumps,
                         json::array graphs, std::string_view version) {
  json::array files;
  for (const ReportDump& dump : dumps) {
    const std::size_t slash = dump.path.find_last_of('/');
    json::object file{
        {"name", text::shown(slash == std::string::npos ? dump.path : dump.path.substr(slash + 1))},
        {"path", text::shown(dump.path)},
        {"objects", dump.objects},
        {"traced", dump.traced}};
    if (!dump.dumped_at.empty()) {
      file["dumpedAt"] = dump.dumped_at;
      file["timeFrom"] = dump.time_from_manifest ? "manifest" : "file";
    }
    files.push_back(std::move(file));
  }
  return {{"format", "heapleak-report/1"},  {"version", version},
          {"dumps", std::move(files)},      {"explain", explain},
          {"cards", report_cards(explain)}, {"graphs", std::move(graphs)}};
}

}  // namespace heapleak::results
