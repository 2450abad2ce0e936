// cache list / cache clear: the images of parsed dumps (heapleak's own cache,
// or heapleakd's through cacheList/cacheClear).
#include "results/text/human_bytes.h"
#include "results/text/render.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

Doc cache_list_text(const json::value& cache) {
  Doc doc;
  const json::array& images = list(cache, "images");
  doc.line(field(cache, "dir") + ": " + counted(images.size(), "image", "images") + ", " +
               bytes_of(cache, "totalBytes") + " of " + bytes_of(cache, "maxBytes") +
               (flag(cache, "enabled") ? "" : " (cache off)"),
           Tone::kHeading);
  Table& table = doc.table({{"LAST USED", false, false, Tone::kPlain},
                            {"SIZE", true, false, Tone::kPlain},
                            {"OBJECTS", true, false, Tone::kPlain},
                            {"MODE", false, false, Tone::kPlain},
                            {"ANALYSES", false, false, Tone::kPlain},
                            {"DUMP", false, true, Tone::kPlain}});
  for (const auto& image : images) {
    const bool readable = flag(image, "readable");
    // The analyses kept next to the image, mapped by the next load, and their bytes.
    std::string analyses;
    for (const std::string& name : strings_of(image, "analyses"))
      analyses += (analyses.empty() ? "" : ",") +
                  (name == "rootPaths" ? std::string("paths") : std::string("dominators"));
    if (!analyses.empty()) analyses += " (" + bytes_of(image, "analysesBytes") + ")";
    table.rows.push_back({field(image, "lastUsed"), bytes_of(image, "bytes"),
                          readable ? count_of(image, "objects") : "-",
                          readable ? field(image, "mode")
                          : flag(image, "partial")
                              ? "partial"  // being written, or its writer was killed
                              : "unreadable",
                          analyses.empty() ? "-" : analyses,
                          readable ? field(image, "dump") : field(image, "image")});
  }
  return doc;
}

Doc cache_clear_text(const json::value& cleared) {
  Doc doc;
  doc.line("deleted " + counted(num(cleared, "images"), "image", "images") + ", " +
           bytes_of(cleared, "bytes") + ", from " + field(cleared, "dir"));
  return doc;
}

}  // namespace heapleak::text
