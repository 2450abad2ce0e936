#include "results/text/memory_text.h"

#include <optional>
#include <string_view>

#include "results/text/human_bytes.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;
namespace {

// A part's name in words ("fragmentation") from this growth on: RSS wanders
// by pages (core's kMemoryNoGrowth).
constexpr std::int64_t kNamedGrowth = 1 << 20;

std::optional<std::int64_t> signed_of(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  if (!value) return std::nullopt;
  if (value->is_int64()) return value->as_int64();
  if (value->is_uint64()) return static_cast<std::int64_t>(value->as_uint64());
  return std::nullopt;
}

// "+1,234", "-56".
std::string signed_count(const json::value& object, std::string_view key) {
  const std::int64_t n = signed_of(object, key).value_or(0);
  return (n < 0 ? "-" : "+") +
         grouped(n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n));
}

// "15.9 MiB", "?" where the dump's manifest gave none.
std::string rss_at(const json::value& rss) {
  if (rss.is_uint64()) return human_bytes(static_cast<double>(rss.as_uint64()));
  if (rss.is_int64()) return human_bytes(static_cast<double>(rss.as_int64()));
  return "?";
}

// What stands next to a part: the leak rows beside the Ruby objects, the
// DATA objects the rows hold beside malloc outside objects, the names of the
// bloat parts.
std::string beside(const json::value& memory, std::string_view part) {
  if (part == "rubyObjects") {
    const json::value* rows = member(memory, "leakRows");
    if (!rows || num(*rows, "bytes") == 0) return "";
    std::string text = " (leak rows " + bytes_of(*rows, "bytes");
    // The rows are new between the diff's A and B: said against that span
    // when it is not the whole series. When other objects were freed in it,
    // the rows hold more than the heap grew: "194.7 KiB of +81.3 KiB" would
    // read as a mistake, so that case says what happened.
    if (field(*rows, "from") != field(memory, "from") ||
        field(*rows, "to") != field(memory, "to")) {
      const std::int64_t span_growth = signed_of(*rows, "rubyObjects").value_or(0);
      const std::string span = field(*rows, "from") + " to " + field(*rows, "to");
      if (span_growth >= 0 && num(*rows, "bytes") <= static_cast<std::uint64_t>(span_growth))
        text += " of " + signed_bytes(span_growth) + " " + span;
      else
        text += "; the heap " + signed_bytes(span_growth) + " " + span + ", as others were freed";
    }
    return text + ")";
  }
  if (part == "mallocOutsideObjects") {
    // The leak rows' DATA objects: what of this part memsize sees, and
    // whether it under-counts them.
    const json::array& rows = list(memory, "nativeRows");
    if (rows.empty()) return "";
    std::uint64_t bytes = 0, undercounted = 0, objects = 0;
    for (const json::value& row : rows) {
      bytes += num(row, "bytes");
      undercounted += num(row, "undercounted");
      objects += num(row, "dataObjects");
    }
    const json::value& top = rows.front();
    const std::uint64_t named = num(top, "classObjects");
    std::string text =
        " (native memory: leak rows hold " + grouped(named) + " " + field(top, "class");
    if (objects > named)
      text += " and " + counted(objects - named, "other DATA object", "other DATA objects");
    text += ", " + human_bytes(static_cast<double>(bytes)) + " in their memsize";
    if (undercounted > 0)
      text += ", which under-counts " +
              (undercounted == objects ? std::string(objects == 1 ? "it" : "them all")
                                       : grouped(undercounted) + " of them") +
              ": what they malloc is not in it";
    return text + ")";
  }
  // Named only where it grew: a shrinking free list is no fragmentation.
  if (part == "mallocFreeHeld") return " (fragmentation)";
  return "";
}

}  // namespace

bool rss_recorded(const json::value& memory) { return signed_of(memory, "rssGrowth").has_value(); }

std::string signed_bytes(std::int64_t bytes) {
  const double magnitude = bytes < 0 ? -static_cast<double>(bytes) : static_cast<double>(bytes);
  return (bytes < 0 ? "-" : "+") + human_bytes(magnitude);
}

void add_memory_block(Doc& doc, const json::value& memory) {
  if (!memory.is_object()) return;
  const std::string span = field(memory, "from") + " to " + field(memory, "to");
  Line& line = add(doc.line("Memory", Tone::kHeading), ": ");
  const json::value* rss = member(memory, "rss");
  const std::optional<std::int64_t> growth = signed_of(memory, "rssGrowth");
  if (rss && rss->is_array() && !rss->as_array().empty() && growth) {
    const json::array& each = rss->as_array();
    add(line, "RSS " + rss_at(each.front()) + " -> " + rss_at(each.back()) + " (" +
                  signed_bytes(*growth) + ", " + span + "): ");
  } else {
    add(line, "RSS not recorded (" + span + "): ");
  }
  std::string parts;
  for (const json::value& part : list(memory, "parts")) {
    const std::optional<std::int64_t> bytes = signed_of(part, "bytes");
    if (!bytes) continue;  // a figure not recorded is left out, not shown as 0
    const std::string name = raw(part, "name");
    if (!parts.empty()) parts += ", ";
    parts += field(part, "label") + " " + signed_bytes(*bytes);
    std::string next_to =
        name != "mallocFreeHeld" || *bytes >= kNamedGrowth ? beside(memory, name) : "";
    // Without RSS, the heap's own figures are all there is: its objects too,
    // in the one parenthesis ("(+104 objects; leak rows ...)").
    if (name == "rubyObjects" && !growth)
      next_to = " (" + signed_count(memory, "objectsGrowth") + " objects" +
                (next_to.empty() ? ")" : "; " + next_to.substr(2));
    parts += next_to;
  }
  add(line, parts);
  // Without RSS the verdict only repeats the first line ("RSS was not recorded").
  if (growth)
    add(add(doc.line("   "), "verdict", Tone::kReason), ": " + field(memory, "verdictText"));
  std::string next = joined(memory, "tryNext", "; ");
  const std::string doc_page = field(memory, "doc");
  if (!next.empty())
    doc.line("   try: " + next + (doc_page.empty() ? "" : " (" + doc_page + ")"));
  else if (!doc_page.empty())
    doc.line("   the numbers: " + doc_page);
  for (const std::string& note : strings_of(memory, "notes")) doc.line("   note: " + note);
}

}  // namespace heapleak::text
