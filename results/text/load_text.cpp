// loadHeap and unloadHeap: a heap into the store and out of it
// (heapleak-client load and unload, MCP load_dump and unload_heap).
#include <cstdio>

#include "results/text/human_bytes.h"
#include "results/text/render.h"
#include "results/text/terminal_safe.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

Doc loaded_text(const json::value& loaded) {
  Doc doc;
  const json::value* load = member(loaded, "loadSeconds");
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f s",
                load && load->is_number() ? load->to_number<double>() : 0.0);
  doc.line("Loaded " + field(loaded, "path") + " as heap " + field(loaded, "heap") + " (name \"" +
           field(loaded, "name") + "\"): " + count_of(loaded, "objects") + " objects, " +
           (flag(loaded, "traced") ? "with allocation sites"
                                   : "without allocation sites (no trace_object_allocations)") +
           ", " + bytes_of(loaded, "residentBytes") + " resident, in " + seconds + ".");
  // A dump cut short loads with a `truncated` warning: every warning is said.
  for (const auto& warning : list(loaded, "warnings"))
    if (warning.is_string()) doc.warnings.push_back(shown(warning.as_string()));
  if (const std::uint64_t broken = num(loaded, "brokenLines"); broken > 0)
    doc.warnings.push_back("skipped " + grouped(broken) + " unreadable lines of " +
                           field(loaded, "path"));
  return doc;
}

Doc unloaded_text(const json::value& unloaded) {
  Doc doc;
  doc.line("Unloaded heap " + field(unloaded, "heap") + " (" + field(unloaded, "name") + ").");
  return doc;
}

}  // namespace heapleak::text
