// pathToRoot: the shortest path from a GC root to an object, a row a hop.
#include "results/text/render.h"
#include "results/text/terminal_safe.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

namespace {

// A hop's `via` in words: "@cache", "@a and @c", "one of @a, @b"; "" when absent.
std::string via_words(const json::value* via) {
  if (!via || !via->is_object()) return "";
  if (std::string ivar = field(*via, "ivar"); !ivar.empty()) return ivar;
  if (member(*via, "ivars")) return joined(*via, "ivars", " and ");
  if (member(*via, "candidates")) return "one of " + joined(*via, "candidates", ", ");
  return "";
}

}  // namespace

Doc path_text(const json::value& path) {
  Doc doc;
  const json::array& objects = list(path, "objects");
  std::string head = "ROOT " + field(path, "root");
  // VM internals between the root and the first Ruby-visible object (3.4+).
  std::string through = joined(path, "rootViaNames", ", ");
  if (through.empty()) through = joined(path, "rootVia", ", ");
  if (!through.empty()) head += " (through " + through + ")";
  doc.line(head + " reaches the object in " + counted(objects.size(), "step", "steps") + ":",
           Tone::kHeading);
  // HELD IN: the ivar of the object above that holds this one (Ruby 3.2+
  // dumps name it); the column is left out when no hop has one.
  bool any_via = false;
  for (const auto& hop : objects) any_via |= !via_words(member(hop, "via")).empty();
  std::vector<TableColumn> columns{
      {"#", true, false, Tone::kPlain},     {"ADDRESS", false, false, Tone::kObject},
      {"TYPE", false, false, Tone::kPlain}, {"CLASS", false, true, Tone::kPlain},
      {"BYTES", true, false, Tone::kPlain}, {"LOCATION", false, true, Tone::kPlain}};
  if (any_via) columns.insert(columns.begin() + 4, {"HELD IN", false, true, Tone::kPlain});
  Table& table = doc.table(std::move(columns));
  std::size_t k = 0;
  for (const auto& hop : objects) {
    std::string name = field(hop, "name");
    if (name.empty()) name = field(hop, "class");
    std::vector<std::string> row{std::to_string(k++),      field(hop, "address"),
                                 field(hop, "type"),       name,
                                 bytes_of(hop, "memsize"), location(hop)};
    if (any_via) row.insert(row.begin() + 4, via_words(member(hop, "via")));
    table.rows.push_back(std::move(row));
  }
  return doc;
}

}  // namespace heapleak::text
