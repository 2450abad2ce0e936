// root: the nearest common retainer of sample objects in words (the graph is
// root's dot text), or why there is none; the containers of split samples.
#include "results/text/human_bytes.h"
#include "results/text/render.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

Doc retainer_text(const json::value& root) {
  Doc doc;
  const json::value* retainer = member(root, "retainerObject");
  const std::size_t samples = list(root, "samples").size();
  if (retainer && retainer->is_object()) {
    add(add(doc.line("Nearest common retainer:", Tone::kHeading), " "), describe(*retainer),
        Tone::kObject);
    add(std::get<Line>(doc.blocks.back()), ", holding " + grouped(num(root, "samplesReached")) +
                                               " of " + counted(samples, "sample", "samples") +
                                               " at distance " +
                                               std::to_string(num(root, "distance")));
  } else {
    doc.line(
        "No common retainer: " +
            (flag(root, "budgetExhausted")
                 ? "the search gave up after visiting " +
                       counted(num(root, "visited"), "reference", "references") + " (--max-visits)"
                 : std::string("no single object holds the samples (try --min-samples)")),
        Tone::kHeading);
  }
  if (const json::value* path = member(root, "rootPath"); path && path->is_object()) {
    std::string text = "ROOT " + field(*path, "root");
    const std::vector<std::string> names = strings_of(*path, "pathNames");
    for (std::size_t k = 1; k < names.size(); ++k) text += " -> " + names[k];
    add(doc.line("Its path:", Tone::kHeading), " " + text);
  }
  if (std::string note = field(root, "retainerNote"); !note.empty()) doc.line("Note: " + note);
  if (flag(root, "split")) {
    doc.line("The samples sit in different containers:");
    for (const auto& group : list(root, "groups")) {
      const json::value* holder = member(group, "retainer");
      doc.line("  " +
               (holder && holder->is_object() ? describe(*holder) : std::string("(no container)")) +
               " holds " + joined(group, "samples", " "));
    }
  }
  if (std::string unknown = joined(root, "unknown", " "); !unknown.empty())
    doc.line("Not in this heap: " + unknown);
  return doc;
}

}  // namespace heapleak::text
