// owner: the object that owns a set (or the owners of its parts), its path
// from a GC root, and the merged shortest paths to the set as a tree.
#include "results/text/human_bytes.h"
#include "results/text/render.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

namespace {

// "ROOT vm -> 0x.. UserCache -> 0x.. UserCache.@cache": the path's addresses
// with their Ruby names (pathNames[0] names the root).
std::string owner_path(const json::value& owner) {
  const std::vector<std::string> addresses = strings_of(owner, "path");
  const std::vector<std::string> names = strings_of(owner, "pathNames");
  std::string text = "ROOT " + field(owner, "root");
  for (std::size_t k = 0; k < addresses.size(); ++k) {
    text += " -> " + addresses[k];
    if (k + 1 < names.size()) text += " " + names[k + 1];
  }
  return text;
}

void tree(Doc& doc, const json::value& node, std::size_t depth) {
  for (const auto& child : list(node, "children")) {
    Line& line = doc.line(std::string(2 * depth + 2, ' ') + ruby_key(raw(child, "key")) + " (" +
                          count_of(child, "count") + ")");
    if (std::string example = field(child, "example"); !example.empty())
      add(line, "  e.g. " + example, Tone::kObject);
    tree(doc, child, depth + 1);
  }
}

}  // namespace

Doc owner_text(const json::value& owner) {
  Doc doc;
  const std::uint64_t reachable = num(owner, "objects");
  const json::value* single = member(owner, "owner");
  if (reachable == 0) {
    doc.line("None of the objects is reachable from a GC root.");
  } else if (single && single->is_object()) {
    add(add(doc.line("Owner:", Tone::kHeading), " "), describe(*single), Tone::kObject);
    add(std::get<Line>(doc.blocks.back()), " retains " + bytes_of(*single, "retained"));
  } else {
    doc.line("No single object owns all " + grouped(reachable) + " objects; owners of its parts:",
             Tone::kHeading);
    for (const auto& part : list(owner, "owners")) {
      const std::string who =
          field(part, "address").empty() ? std::string("(a GC root itself)") : describe(part);
      doc.line("  " + who + " retains " + bytes_of(part, "retained") + " (" +
               counted(num(part, "objects"), "object", "objects") + ")");
    }
  }
  if (!list(owner, "path").empty())
    add(doc.line("Path:", Tone::kHeading), "  " + owner_path(owner));
  if (const std::size_t gone = list(owner, "unreachable").size(); gone > 0) {
    doc.line(grouped(gone) + " of the objects " + (gone == 1 ? "is" : "are") +
             " not reachable from a GC root: " + joined(owner, "unreachable", " "));
  }
  if (reachable > 0) {
    doc.line("Merged shortest paths from the GC roots:", Tone::kHeading);
    if (const json::value* paths = member(owner, "paths")) tree(doc, *paths, 0);
  }
  return doc;
}

}  // namespace heapleak::text
