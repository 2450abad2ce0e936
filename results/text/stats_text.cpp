// stats: the leak diff's groups as a table, largest first.
#include "results/text/render.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {

namespace {
constexpr std::size_t kSamplesShown = 3;
const boost::json::value kNone;
}  // namespace

Doc stats_text(const boost::json::value& stats, const RenderOptions& options) {
  Doc doc;
  const boost::json::value* total = member(stats, "total");
  const std::uint64_t group_count = num(stats, "groupCount");
  std::string head = counted(num(total ? *total : kNone, "count"), "object", "objects") + " (" +
                     bytes_of(total ? *total : kNone, "memsize") + ") new in " +
                     heap_label(stats, "target") + " since " + heap_label(stats, "baseline");
  if (std::string later = heap_label(stats, "later"); !later.empty())
    head += ", still alive in " + later;
  head +=
      ", in " + counted(group_count, "group", "groups") + " by " + field(stats, "groupBy") + ":";
  doc.line(head, Tone::kHeading);
  Table& table = doc.table({{"GROUP", false, true, Tone::kPlain},
                            {"COUNT", true, false, Tone::kPlain},
                            {"BYTES", true, false, Tone::kPlain},
                            {"SAMPLES", false, true, Tone::kObject}});
  for (const auto& group : list(stats, "groups")) {
    std::string samples;
    std::size_t k = 0;
    for (const std::string& address : strings_of(group, "samples")) {
      if (k++ == kSamplesShown) break;
      samples += (samples.empty() ? "" : " ") + address;
    }
    table.rows.push_back({ruby_key(raw(group, "key")), count_of(group, "count"),
                          bytes_of(group, "memsize"), samples});
  }
  const std::uint64_t shown = num(stats, "offset") + table.rows.size();
  if (group_count > shown)
    doc.line("... " + counted(group_count - shown, "more group", "more groups") +
             options.more_hint);
  // stats only diffs (no references): explain names the container of each leak.
  if (group_count > 0)
    doc.line(
        "Groups that are mostly VM internals come last; `explain` names the container that holds "
        "each leak.");
  doc.warnings = strings_of(stats, "warnings");
  return doc;
}

}  // namespace heapleak::text
