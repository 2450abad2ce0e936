// object: one object's fields and its dump record (heapleak-client inspect,
// MCP inspect_object; the pages of its referrers and references are apart).
#include <boost/json/serialize.hpp>

#include "results/text/render.h"
#include "results/text/terminal_safe.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

Doc object_text(const json::value& object, std::size_t record_columns) {
  Doc doc;
  Fields& fields = doc.fields();
  fields.rows = {
      {"address", field(object, "address")},
      {"type", field(object, "type")},
      {"class", field(object, "class")},
      {"memsize", bytes_of(object, "memsize") + " (" + count_of(object, "memsize") + " bytes)"},
  };
  if (std::string where = location(object); !where.empty())
    fields.rows.emplace_back("allocated at", where);
  if (std::string method = field(object, "method"); !method.empty())
    fields.rows.emplace_back("method", method);
  if (member(object, "generation"))
    fields.rows.emplace_back("generation", std::to_string(num(object, "generation")));
  fields.rows.emplace_back("references", count_of(object, "referencesCount"));
  fields.rows.emplace_back("referrers", count_of(object, "referrersCount"));
  fields.rows.emplace_back("heap", field(object, "heap"));
  if (std::string error = field(object, "recordError"); !error.empty())
    fields.rows.emplace_back("record error", error);
  if (const json::value* record = member(object, "record"); record && record->is_object()) {
    doc.line("record:", Tone::kHeading);
    Fields& lines = doc.fields();
    for (const auto& [key, value] : record->as_object()) {
      const std::string text =
          value.is_string() ? std::string(value.as_string()) : json::serialize(value);
      lines.rows.emplace_back("  " + shown(key),
                              shown(record_columns ? cut(text, record_columns) : text));
    }
  }
  return doc;
}

}  // namespace heapleak::text
