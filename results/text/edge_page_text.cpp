// referrers and references: one page of an object's edges (heapleak-client
// referrers/references, MCP inspect_object's two pages).
#include "results/text/human_bytes.h"
#include "results/text/render.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

Doc edge_page_text(const json::value& page, std::string_view side, std::string_view next_page) {
  Doc doc;
  const json::array& items = list(page, "items");
  Table& table = doc.table({{"ADDRESS", false, false, Tone::kObject},
                            {"TYPE", false, false, Tone::kPlain},
                            {"CLASS", false, true, Tone::kPlain},
                            {"BYTES", true, false, Tone::kPlain},
                            {"LOCATION", false, true, Tone::kPlain}});
  for (const auto& brief : items) {
    // The Ruby-facing name (UserCache, not the class's metaclass
    // #<Class:0x...>); a daemon from before `name` existed gives only `class`.
    std::string name = field(brief, "name");
    if (name.empty()) name = field(brief, "class");
    table.rows.push_back({field(brief, "address"), field(brief, "type"), std::move(name),
                          bytes_of(brief, "memsize"), location(brief)});
  }
  const std::uint64_t offset = num(page, "offset");
  const std::uint64_t total = num(page, "total");
  const std::uint64_t count = items.size();
  std::string range =
      count ? std::to_string(offset + 1) + "-" + std::to_string(offset + count) + " of " : "0 of ";
  range += grouped(total) + " " + std::string(side) + " of " + field(page, "address");
  if (offset + count < total && !next_page.empty())
    range += " (next page: " + std::string(next_page) + std::to_string(offset + count) + ")";
  doc.line(std::move(range));
  return doc;
}

}  // namespace heapleak::text
