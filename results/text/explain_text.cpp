// explain: one row per leak (holder, growth, reach, path, what it holds by
// class), then the rows that are probably not leaks, with why.
#include <cctype>
#include <string_view>
#include <vector>

#include "results/text/human_bytes.h"
#include "results/text/memory_text.h"
#include "results/text/render.h"
#include "results/text/wire_fields.h"

namespace heapleak::text {
namespace json = boost::json;

namespace {

constexpr std::size_t kClassesShown = 5;
const json::value kNone;

// A growth count, "?" where the dump could not say.
std::string growth_count(const json::value& growth, std::string_view key) {
  const json::value* value = member(growth, key);
  return value && value->is_number() ? count_of(growth, key) : "?";
}

// Over N >= 4 dumps: "length grew in 4 of 4 intervals: 120 -> 240 -> ...",
// "?" where a dump has no such container.
std::string series_growth(const json::value& growth, const json::array& counts,
                          std::uint64_t grew) {
  std::string text = field(growth, "field") + " grew in " + std::to_string(grew) + " of " +
                     std::to_string(counts.size() - 1) + " intervals: ";
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (k > 0) text += " -> ";
    text += counts[k].is_number() ? grouped(counts[k].to_number<std::uint64_t>()) : "?";
  }
  return text;
}

// "KEY: 1,800 objects, 84.4 KiB, retaining 1.2 MiB"
void row_head(Line& line, const json::value& row) {
  add(line, field(row, "key"), Tone::kHeading);
  add(line, ": " + counted(num(row, "count"), "object", "objects") + ", " +
                bytes_of(row, "memsize") + ", retaining " + bytes_of(row, "retained"));
}

// A name with its addresses blanked: "#<Module:0x7f..>" and the next
// anonymous module read alike.
std::string shape_of(std::string_view name) {
  std::string out;
  for (std::size_t k = 0; k < name.size(); ++k) {
    if (name.substr(k, 2) == "0x") {
      out += "0x?";
      k += 2;
      while (k < name.size() && std::isxdigit(static_cast<unsigned char>(name[k]))) ++k;
      --k;
      continue;
    }
    out += name[k];
  }
  return out;
}

// The path, with a run of alike hops (a module prepended per job: 600
// anonymous modules in a row) shown as its first and last and how many
// between: the line a person reads stays a line.
std::string path_line(const json::value& row) {
  constexpr std::size_t kRun = 4;
  const std::vector<std::string> names = strings_of(row, "pathNames");
  std::string text;
  for (std::size_t k = 0; k < names.size();) {
    std::size_t end = k + 1;
    while (end < names.size() && shape_of(names[end]) == shape_of(names[k])) ++end;
    const auto add_name = [&](const std::string& name) {
      if (!text.empty()) text += " -> ";
      text += name;
    };
    if (end - k >= kRun) {
      add_name(names[k]);
      add_name("(" + grouped(end - k - 2) + " more alike)");
      add_name(names[end - 1]);
    } else {
      for (std::size_t j = k; j < end; ++j) add_name(names[j]);
    }
    k = end;
  }
  return text;
}

// What of the row's bytes is C memory its DATA objects own: as their memsize
// says, or, where memsize is known to under-count, that it cannot say.
std::string native_phrase(const json::value& native) {
  const std::uint64_t objects = num(native, "dataObjects");
  const std::uint64_t undercounted = num(native, "undercounted");
  std::string who = counted(objects, "DATA object", "DATA objects");
  const std::uint64_t named = num(native, "classObjects");
  who += " (" +
         (named == objects ? field(native, "class")
                           : grouped(named) + " " + field(native, "class") + " and others") +
         ")";
  if (undercounted == objects)
    return who + ": memsize under-counts " + (objects == 1 ? "it" : "them") +
           ", the C memory they hold is not in these bytes (see malloc outside objects above)";
  std::string text =
      bytes_of(native, "bytes") + " of its bytes is C memory of " + who + ", as memsize reports it";
  if (undercounted > 0)
    text += "; " + grouped(undercounted) + " of them under-count, what they hold is more";
  return text;
}

void leak_row(Doc& doc, std::uint64_t rank, const json::value& row, const RenderOptions& options) {
  row_head(add(doc.line(), std::to_string(rank) + ". "), row);
  if (const json::value* holder = member(row, "holder"); holder && holder->is_object()) {
    Line& line = add(doc.line("   holder: "), describe(*holder), Tone::kObject);
    const json::array& counts = list(row, "growthCounts");
    if (const json::value* growth = member(row, "growth"); growth && growth->is_object()) {
      const std::string rebuilt =
          flag(*growth, "rebuilt")    ? "; what it holds is rebuilt, a grown copy each time"
          : flag(*growth, "replaced") ? "; read on what it holds, a new container in each dump"
                                      : "";
      if (counts.size() >= 2) {
        add(line, " (" + series_growth(*growth, counts, num(row, "grewIntervals")) + rebuilt + ")");
      } else {
        // "-": the holder was made between A and B, it has no size in A.
        const std::string first = flag(*growth, "born") ? "-" : growth_count(*growth, "baseline");
        add(line, " (" + field(*growth, "field") + " " + first + " -> " +
                      growth_count(*growth, "target") + " -> " + growth_count(*growth, "later") +
                      rebuilt + ")");
      }
    }
    if (const json::value* reach = member(row, "reach"); reach && reach->is_object()) {
      doc.line("   reach:  " + field(*reach, "kind") + " " + field(*reach, "name") + " (ROOT " +
               field(*reach, "root") + ")");
    }
  }
  if (const json::value* native = member(row, "native"); native && native->is_object())
    doc.line("   native: " + native_phrase(*native));
  // The block or proc that holds the row's objects, named from its iseq.
  if (std::string block = field(row, "block"); !block.empty()) doc.line("   block:  " + block);
  if (std::string path = path_line(row); !path.empty()) doc.line("   path:   " + path);
  // Holders it keeps alive through a block, whose growth is this leak's.
  for (const json::value& with : list(row, "growsWith")) {
    const std::uint64_t holders = num(with, "holders");
    doc.line("   and " + (holders > 1 ? count_of(with, "holders") + " x " : std::string()) +
             field(with, "key") + " grow with it");
  }
  const json::array& classes = list(row, "objects");
  for (std::size_t k = 0; k < classes.size() && k < kClassesShown; ++k) {
    const json::value& entry = classes[k];
    std::string text = "   " + count_of(entry, "count") + " x " + field(entry, "name") + " (" +
                       bytes_of(entry, "memsize") + ")";
    const json::array& sites = list(entry, "sites");
    if (!sites.empty()) {
      text += " at " + field(sites.front(), "site");
      if (sites.size() > 1) text += " and " + counted(sites.size() - 1, "more site", "more sites");
    }
    doc.line(text);
  }
  if (classes.size() > kClassesShown)
    doc.line("   ... " + counted(classes.size() - kClassesShown, "more class", "more classes"));
  if (options.samples) {
    if (std::string samples = joined(row, "samples", " "); !samples.empty())
      doc.line("   samples: " + samples);
  }
}

}  // namespace

Doc explain_text(const json::value& explain, const RenderOptions& options) {
  Doc doc;
  // Where the memory went first: the question before which object leaks.
  // Without RSS it can only say what is missing: after the rows.
  const json::value* memory = member(explain, "memory");
  if (memory && !memory->is_object()) memory = nullptr;
  const bool memory_first = memory && rss_recorded(*memory);
  if (memory_first) {
    add_memory_block(doc, *memory);
    doc.line();
  }
  const json::value* total = member(explain, "total");
  const std::uint64_t leak_count = num(explain, "leakCount");
  const std::uint64_t noise_count = num(explain, "noiseCount");
  const std::uint64_t offset = num(explain, "offset");
  std::string head = " (" + counted(num(total ? *total : kNone, "count"), "object", "objects") +
                     ", " + bytes_of(total ? *total : kNone, "memsize") + " new in " +
                     heap_label(explain, "target");
  if (std::string baseline = heap_label(explain, "baseline"); !baseline.empty())
    head += " since " + baseline;
  if (std::string later = heap_label(explain, "later"); !later.empty())
    head += ", still alive in " + later;
  if (const json::value* files = member(explain, "files");
      files && list(*files, "dumps").size() > 3)
    head += ", growth over " + std::to_string(list(*files, "dumps").size()) + " dumps";
  head +=
      "; " + counted(leak_count, "leak", "leaks") + ", " + grouped(noise_count) + " probably not)";
  if (offset > 0) head += ", from row " + std::to_string(offset + 1);
  add(doc.line("Leaks by bytes retained", Tone::kHeading), head + ":");
  const json::array& leaks = list(explain, "leaks");
  if (leak_count == 0) doc.line("   none");
  std::uint64_t rank = offset;
  for (const auto& row : leaks) leak_row(doc, ++rank, row, options);
  if (leak_count > rank)
    doc.line("... " + counted(leak_count - rank, "more leak", "more leaks") + options.more_hint);
  const json::array& noise = list(explain, "noise");
  if (!noise.empty()) {
    doc.line();
    add(doc.line("Probably not leaks", Tone::kHeading), ":");
    for (const auto& row : noise) {
      row_head(add(doc.line(), "-  "), row);
      add(add(doc.line("   "), field(row, "reason"), Tone::kReason), ": " + field(row, "why"));
    }
  }
  if (!noise.empty() && noise_count > noise.size())
    doc.line("... " + counted(noise_count - noise.size(), "more row", "more rows") +
             " probably not leaks" + options.more_hint);
  if (memory && !memory_first) {
    doc.line();
    add_memory_block(doc, *memory);
  }
  doc.warnings = strings_of(explain, "warnings");
  return doc;
}

}  // namespace heapleak::text
