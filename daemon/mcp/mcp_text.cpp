#include "daemon/mcp/mcp_text.h"

#include <boost/json/value.hpp>
#include <cstdint>
#include <string_view>

#include "results/text/human_bytes.h"
#include "results/text/render.h"
#include "results/text/wire_fields.h"

namespace heapleak::daemon {
namespace json = boost::json;

namespace {

const json::value kNull;

const json::value& at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value ? *value : kNull;
}

std::int64_t num(const json::value& value) {
  return value.is_number() ? value.to_number<std::int64_t>() : 0;
}

const json::object& obj(const json::value& value) {
  static const json::object kEmpty;
  return value.is_object() ? value.get_object() : kEmpty;
}

std::string more(const json::object& result, std::string_view tool, std::string_view argument) {
  if (!at(result, "nextOffset").is_number()) return "";
  return "More rows are available: call " + std::string(tool) + " again with " +
         std::string(argument) + "=" + std::to_string(num(at(result, "nextOffset"))) + ".\n";
}

}  // namespace

std::string mcp_loaded_text(const json::object& loaded) {
  const text::Doc doc = text::loaded_text(loaded);
  return text::plain(doc) + text::plain_warnings(doc);
}

std::string mcp_heaps_text(const json::object& heaps) {
  return text::plain(text::heaps_text(heaps));
}

std::string mcp_unloaded_text(const json::object& unloaded) {
  return text::plain(text::unloaded_text(unloaded));
}

std::string mcp_leaks_text(const json::object& explain) {
  text::RenderOptions options;
  options.samples = true;  // a model follows the rows up by their sample addresses
  const text::Doc doc = text::explain_text(explain, options);
  return text::plain(doc) + more(explain, "find_leaks", "offset") + text::plain_warnings(doc);
}

std::string mcp_report_text(const json::object& written) {
  const std::uint64_t leaks = text::num(written, "leakCount");
  const std::uint64_t noise = text::num(written, "noiseCount");
  std::string out = "Wrote the leak report (" + text::counted(leaks, "leak", "leaks") + ", " +
                    text::grouped(noise) + " probably not; " +
                    text::human_bytes(static_cast<double>(text::num(written, "bytes"))) + ") to " +
                    text::field(written, "path") +
                    "\nLink for the user: " + text::field(written, "uri") +
                    "\nIt is one self-contained HTML page: it opens from disk in any browser "
                    "and loads nothing from the network.\n";
  for (const std::string& warning : text::strings_of(written, "warnings"))
    out += "warning: " + warning + "\n";
  return out;
}

std::string mcp_stats_text(const json::object& stats) {
  const text::Doc doc = text::stats_text(stats);
  return text::plain(doc) + more(stats, "leak_stats", "offset") + text::plain_warnings(doc);
}

std::string mcp_retainer_text(const json::object& root) {
  return text::plain(text::retainer_text(root));
}

std::string mcp_owner_text(const json::object& owner) {
  return text::plain(text::owner_text(owner));
}

std::string mcp_path_text(const json::object& path) { return text::plain(text::path_text(path)); }

std::string mcp_object_text(const json::object& inspected) {
  // A record value's first 200 characters: a String's runs to 4 KiB (trim_record).
  std::string text = text::plain(text::object_text(at(inspected, "object"), 200));
  for (std::string_view side : {"referrers", "references"}) {
    const json::object& page = obj(at(inspected, side));
    text += text::plain(text::edge_page_text(page, side));
    if (at(page, "nextOffset").is_number()) {
      text += "More " + std::string(side) + ": call inspect_object again with " +
              std::string(side) + "Offset=" + std::to_string(num(at(page, "nextOffset"))) + ".\n";
    }
  }
  return text;
}

std::string mcp_top_text(const json::object& top) {
  return text::plain(text::top_text(top)) + more(top, "top_retainers", "offset");
}

}  // namespace heapleak::daemon
