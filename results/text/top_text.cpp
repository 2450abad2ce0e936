// top: what keeps the most memory alive (by object or by class), and the
// strings stored many times over when the result carries them.
#include <boost/json/serialize.hpp>

#include "results/text/render.h"
#include "results/text/terminal_safe.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

namespace {
const json::value kNone;
// A duplicate string's value in the table: enough to recognise it.
constexpr std::size_t kValueColumns = 60;
}  // namespace

Doc top_text(const json::value& top, const RenderOptions&) {
  Doc doc;
  const json::value* classes = member(top, "classes");
  const bool by_class = classes && classes->is_array();
  const json::value* unreachable = member(top, "unreachable");
  const json::value& gone = unreachable ? *unreachable : kNone;
  std::string head = " (" + count_of(top, "reachable") + " objects reachable from GC roots, " +
                     count_of(gone, "count") + " unreachable holding " + bytes_of(gone, "memsize") +
                     ")";
  if (std::string heap = heap_label(top, "heap"); !heap.empty()) head += " in " + heap;
  add(doc.line(by_class ? "Retained by class" : "Retained by object", Tone::kHeading), head + ":");
  if (by_class) {
    Table& table = doc.table({{"RETAINED", true, false, Tone::kPlain},
                              {"CLASS", false, true, Tone::kObject},
                              {"OBJECTS", true, false, Tone::kPlain}});
    for (const auto& entry : classes->as_array()) {
      std::string name = field(entry, "name");
      if (name.empty()) name = ruby_key(raw(entry, "key"));
      table.rows.push_back({bytes_of(entry, "retained"), name, count_of(entry, "count")});
    }
  } else {
    Table& table = doc.table({{"RETAINED", true, false, Tone::kPlain},
                              {"ADDRESS", false, false, Tone::kObject},
                              {"CLASS", false, true, Tone::kPlain},
                              {"LOCATION", false, true, Tone::kPlain}});
    for (const auto& entry : list(top, "retainers")) {
      std::string name = field(entry, "name");
      if (name.empty()) name = ruby_key(raw(entry, "key"));
      table.rows.push_back(
          {bytes_of(entry, "retained"), field(entry, "address"), name, location(entry)});
    }
  }
  const json::array& dups = list(top, "duplicateStrings");
  if (!dups.empty()) {
    doc.line("Duplicate strings (same content, many copies):", Tone::kHeading);
    Table& table = doc.table({{"COPIES", true, false, Tone::kPlain},
                              {"WASTED", true, false, Tone::kPlain},
                              {"VALUE", false, true, Tone::kPlain},
                              {"SAMPLE", false, false, Tone::kObject}});
    for (const auto& dup : dups) {
      const json::value* value = member(dup, "value");
      const std::vector<std::string> samples = strings_of(dup, "samples");
      // Quoted as JSON (controls as \u001b), then the one rule for the rest.
      table.rows.push_back({count_of(dup, "count"), bytes_of(dup, "wasted"),
                            value && value->is_string()
                                ? cut(shown(json::serialize(*value)), kValueColumns)
                                : std::string("(not read back)"),
                            samples.empty() ? std::string() : samples.front()});
    }
  }
  return doc;
}

}  // namespace heapleak::text
