#include "daemon/mcp/mcp_text.h"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "results/text/human_bytes.h"
#include "results/text/render.h"
#include "results/text/terminal_safe.h"
#include "results/text/utf8_text.h"

namespace heapleak::daemon {
namespace json = boost::json;

namespace {

const json::value kNull;

const json::value& at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value ? *value : kNull;
}

// Dump strings escaped for whoever reads the text (results/text/terminal_safe.h).
std::string str(const json::value& value) {
  if (value.is_string()) return text::shown(value.get_string());
  if (value.is_null()) return "-";
  return json::serialize(value);
}

std::int64_t num(const json::value& value) {
  return value.is_number() ? value.to_number<std::int64_t>() : 0;
}

const json::array& rows(const json::value& value) {
  static const json::array kEmpty;
  return value.is_array() ? value.get_array() : kEmpty;
}

const json::object& obj(const json::value& value) {
  static const json::object kEmpty;
  return value.is_object() ? value.get_object() : kEmpty;
}

// 2713 -> "2,713"
std::string count(std::int64_t n) {
  return text::grouped(n < 0 ? 0 : static_cast<std::uint64_t>(n));
}

// "1 leak", "2 leaks"
std::string counted(std::int64_t n, std::string_view one, std::string_view many) {
  return count(n) + " " + std::string(n == 1 ? one : many);
}

std::string bytes(const json::value& value) {
  return text::human_bytes(static_cast<double>(num(value)));
}

std::string pad(std::string text, std::size_t width, bool right = false) {
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

// "0x7f.. Hash (User at app.rb:12)"
std::string summary(const json::value& value) {
  const json::object& object = obj(value);
  if (object.empty()) return "-";
  std::string text = str(at(object, "address")) + " " + str(at(object, "name"));
  if (at(object, "file").is_string()) {
    text += " at " + str(at(object, "file")) + ":" + std::to_string(num(at(object, "line")));
  }
  return text;
}

// A table of object summaries with a column of extra numbers.
std::string object_table(const json::array& items, std::string_view extra_title,
                         std::string (*extra)(const json::object&)) {
  std::string text =
      "ADDRESS          " + pad(std::string(extra_title), 11, true) + "  TYPE     NAME\n";
  for (const json::value& item : items) {
    const json::object& object = obj(item);
    std::string line = pad(str(at(object, "address")), 16) + " " + pad(extra(object), 11, true) +
                       "  " + pad(str(at(object, "type")), 8) + " " + str(at(object, "name"));
    if (at(object, "file").is_string()) {
      line += "  (" + str(at(object, "file")) + ":" + std::to_string(num(at(object, "line"))) + ")";
    }
    text += line + "\n";
  }
  return text;
}

std::string memsize_of(const json::object& object) { return bytes(at(object, "memsize")); }

std::string more(const json::object& result, std::string_view tool, std::string_view argument) {
  if (!at(result, "nextOffset").is_number()) return "";
  return "More rows are available: call " + std::string(tool) + " again with " +
         std::string(argument) + "=" + std::to_string(num(at(result, "nextOffset"))) + ".\n";
}

std::string warnings(const json::object& result) {
  std::string text;
  for (const json::value& warning : rows(at(result, "warnings"))) {
    text += "warning: " + str(warning) + "\n";
  }
  return text;
}

}  // namespace

std::string mcp_loaded_text(const json::object& loaded) {
  std::string text = "Loaded " + str(at(loaded, "path")) + " as heap " + str(at(loaded, "heap")) +
                     " (name \"" + str(at(loaded, "name")) +
                     "\"): " + count(num(at(loaded, "objects"))) + " objects, " +
                     (at(loaded, "traced").is_bool() && at(loaded, "traced").get_bool()
                          ? "with allocation sites"
                          : "without allocation sites (no trace_object_allocations)") +
                     ", " + bytes(at(loaded, "residentBytes")) + " resident.\n";
  if (num(at(loaded, "brokenLines")) > 0) {
    text += count(num(at(loaded, "brokenLines"))) + " broken lines skipped.\n";
  }
  return text + warnings(loaded);
}

std::string mcp_heaps_text(const json::object& heaps) {
  return text::plain(text::heaps_text(heaps));
}

std::string mcp_unloaded_text(const json::object& unloaded) {
  return "Unloaded heap " + str(at(unloaded, "heap")) + " (" + str(at(unloaded, "name")) + ").\n";
}

std::string mcp_leaks_text(const json::object& explain) {
  text::RenderOptions options;
  options.samples = true;  // a model follows the rows up by their sample addresses
  const text::Doc doc = text::explain_text(explain, options);
  return text::plain(doc) + more(explain, "find_leaks", "offset") + text::plain_warnings(doc);
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
  const json::object& object = obj(at(inspected, "object"));
  std::string text = summary(object) + ": " + str(at(object, "type")) + ", " +
                     bytes(at(object, "memsize")) + ", " +
                     counted(num(at(object, "referrersCount")), "referrer", "referrers") + ", " +
                     counted(num(at(object, "referencesCount")), "reference", "references") + ".\n";
  if (at(object, "record").is_object()) {
    std::string record = json::serialize(at(object, "record"));
    // Cut on a character boundary: a reply cut mid-character is invalid UTF-8.
    if (record.size() > 600) record = std::string(text::utf8_prefix(record, 600)) + "...";
    text += "record: " + record + "\n";
  } else if (at(object, "recordError").is_string()) {
    text += "record: not available (" + str(at(object, "recordError")) + ")\n";
  }
  for (std::string_view side : {"referrers", "references"}) {
    const json::object& page = obj(at(inspected, side));
    const json::array& items = rows(at(page, "items"));
    text += std::string(side) + " " +
            std::to_string(num(at(page, "offset")) + (items.empty() ? 0 : 1)) + "-" +
            std::to_string(num(at(page, "offset")) + static_cast<std::int64_t>(items.size())) +
            " of " + count(num(at(page, "total"))) + ":\n";
    if (!items.empty()) text += object_table(items, "BYTES", &memsize_of);
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
