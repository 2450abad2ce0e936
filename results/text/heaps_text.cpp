// listHeaps: the heaps a daemon holds (heapleak-client list, MCP list_heaps).
#include <cstdio>

#include "results/text/render.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

Doc heaps_text(const json::value& heaps) {
  Doc doc;
  const json::array& loaded = list(heaps, "heaps");
  doc.line(
      counted(loaded.size(), "heap", "heaps") + " loaded, " + bytes_of(heaps, "usedBytes") +
          " used" +
          (num(heaps, "maxBytes") > 0 ? " of " + bytes_of(heaps, "maxBytes") + " (--max-memory)"
                                      : std::string(", no limit")),
      Tone::kHeading);
  Table& table = doc.table({{"HEAP", false, false, Tone::kHeading},
                            {"NAME", false, true, Tone::kPlain},
                            {"OBJECTS", true, false, Tone::kPlain},
                            {"MEMORY", true, false, Tone::kPlain},
                            {"LOAD", true, false, Tone::kPlain},
                            {"TRACED", false, false, Tone::kPlain},
                            {"PATH", false, true, Tone::kPlain}});
  for (const auto& heap : loaded) {
    const json::value* load = member(heap, "loadSeconds");
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f s",
                  load && load->is_number() ? load->to_number<double>() : 0.0);
    table.rows.push_back({field(heap, "heap"), field(heap, "name"), count_of(heap, "objects"),
                          bytes_of(heap, "residentBytes"), seconds,
                          flag(heap, "traced") ? "yes" : "no", field(heap, "path")});
  }
  // Loads other clients started that have not ended yet.
  if (std::string loading = joined(heaps, "loading", ", "); !loading.empty())
    doc.line("loading: " + loading);
  return doc;
}

}  // namespace heapleak::text
