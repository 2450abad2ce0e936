#include "results/leak_rows_jsonl.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace heapleak::results {
namespace json = boost::json;
namespace {

const json::value* field(const json::object& object, std::string_view name) {
  return object.if_contains(name);
}

std::string string_of(const json::object& object, std::string_view name) {
  const json::value* value = field(object, name);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

json::value nullable_string(const std::string& text) {
  return text.empty() ? json::value(nullptr) : json::value(text);
}

// The holder's counts per dump: a series' `growthCounts` (N >= 4 dumps, one
// count or null per dump), else the wire's growth {field, baseline, target,
// later}; none for a row without a holder.
json::array growth_counts(const json::object& row, std::size_t dumps) {
  json::array counts;
  const json::value* per_dump = field(row, "growthCounts");
  const json::value* growth = field(row, "growth");
  if (per_dump && per_dump->is_array()) {
    for (const auto& entry : per_dump->as_array())
      counts.push_back(entry.is_number() ? entry : json::value(nullptr));
  } else if (growth && growth->is_object()) {
    for (const char* name : {"baseline", "target", "later"})
      if (const json::value* count = field(growth->as_object(), name)) counts.push_back(*count);
  }
  if (counts.size() > dumps) counts.resize(dumps);  // two dumps: no `later`
  return counts;
}

std::optional<double> number(const json::value& value) {
  if (value.is_int64()) return static_cast<double>(value.as_int64());
  if (value.is_uint64()) return static_cast<double>(value.as_uint64());
  if (value.is_double()) return value.as_double();
  return std::nullopt;
}

// The holder's growth from its first known count to its last, per hour of
// wall time between those dumps; null without both counts and two times.
json::value growth_per_hour(const json::array& counts, const std::vector<DumpFacts>& dumps) {
  std::optional<std::size_t> first, last;
  for (std::size_t k = 0; k < counts.size() && k < dumps.size(); ++k) {
    if (!number(counts[k]) || !std::isfinite(dumps[k].dumped_epoch)) continue;
    if (!first) first = k;
    last = k;
  }
  if (!first || *first == *last) return nullptr;
  const double hours = (dumps[*last].dumped_epoch - dumps[*first].dumped_epoch) / 3600.0;
  if (!(hours > 0)) return nullptr;
  return (*number(counts[*last]) - *number(counts[*first])) / hours;
}

// Allocation sites of the row's objects ("file:line"), most objects first.
json::array sites_of(const json::object& row) {
  std::map<std::string, std::uint64_t> counts;
  if (const json::value* objects = field(row, "objects"); objects && objects->is_array()) {
    for (const auto& entry : objects->as_array()) {
      const json::value* sites = entry.is_object() ? field(entry.as_object(), "sites") : nullptr;
      if (!sites || !sites->is_array()) continue;
      for (const auto& site : sites->as_array()) {
        if (!site.is_object()) continue;
        const std::string name = string_of(site.as_object(), "site");
        const json::value* count = field(site.as_object(), "count");
        if (!name.empty()) counts[name] += count ? static_cast<std::uint64_t>(*number(*count)) : 0;
      }
    }
  }
  std::vector<std::pair<std::string, std::uint64_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  json::array out;
  for (const auto& [site, count] : sorted) out.emplace_back(site);
  return out;
}

json::array classes_of(const json::object& row) {
  json::array out;
  if (const json::value* objects = field(row, "objects"); objects && objects->is_array()) {
    for (const auto& entry : objects->as_array()) {
      if (!entry.is_object()) continue;
      const auto& object = entry.as_object();
      const json::value* count = field(object, "count");
      out.push_back(json::object{{"class", string_of(object, "key")},
                                 {"count", count ? *count : json::value(0)}});
    }
  }
  return out;
}

json::value copy_or_null(const json::object& object, std::string_view name) {
  const json::value* value = field(object, name);
  return value ? *value : json::value(nullptr);
}

// The series' memory (explain's `memory`, results/memory_json.h) as columns
// every line of the run carries: which processes bloat and which leak.
void add_memory_columns(json::object& line, const json::value* memory) {
  const json::object empty;
  const json::object& m = memory && memory->is_object() ? memory->as_object() : empty;
  line["memory_verdict"] = nullable_string(string_of(m, "verdict"));
  line["rss_growth"] = copy_or_null(m, "rssGrowth");
  static const std::pair<const char*, const char*> kParts[] = {
      {"rubyObjects", "ruby_objects_growth"},
      {"freeHeapSlots", "free_heap_slots_growth"},
      {"mallocOutsideObjects", "malloc_outside_objects_growth"},
      {"mallocFreeHeld", "malloc_free_held_growth"},
      {"fileBacked", "file_backed_growth"},
      {"unexplained", "unexplained_growth"}};
  for (const auto& [part, column] : kParts) line[column] = nullptr;
  if (const json::value* parts = field(m, "parts"); parts && parts->is_array()) {
    for (const auto& entry : parts->as_array()) {
      if (!entry.is_object()) continue;
      const std::string name = string_of(entry.as_object(), "name");
      for (const auto& [part, column] : kParts)
        if (name == part) line[column] = copy_or_null(entry.as_object(), "bytes");
    }
  }
}

}  // namespace

std::string series_name(const std::vector<DumpFacts>& dumps) {
  return dumps.empty() ? "." : series_of(dumps.front());
}

std::string leak_rows_jsonl(const json::object& explain, const std::vector<DumpFacts>& dumps) {
  // What every row of this run shares: the process and its dumps.
  const auto& manifest = dumps.empty() ? std::nullopt : dumps.front().manifest;
  json::array paths, times;
  bool all_from_manifest = !dumps.empty();
  for (const auto& dump : dumps) {
    paths.emplace_back(dump.path);
    times.push_back(dump.dumped_at.empty() ? json::value(nullptr) : json::value(dump.dumped_at));
    all_from_manifest = all_from_manifest && dump.time_from_manifest;
  }
  json::value hours = nullptr;
  if (dumps.size() >= 2 && std::isfinite(dumps.front().dumped_epoch) &&
      std::isfinite(dumps.back().dumped_epoch))
    hours = (dumps.back().dumped_epoch - dumps.front().dumped_epoch) / 3600.0;

  std::string out;
  const json::value* memory = field(explain, "memory");
  // The columns every line of this run shares: the process, its dumps and
  // its memory.
  const auto shared = [&](json::object& line) {
    line["series"] = series_name(dumps);
    line["pid"] = manifest ? json::value(manifest->pid) : json::value(nullptr);
    line["host"] = manifest ? nullable_string(manifest->hostname) : json::value(nullptr);
    line["process_started_at"] =
        manifest ? nullable_string(manifest->started_at) : json::value(nullptr);
    line["dumped_at"] = times;
    line["time_source"] = all_from_manifest ? "manifest" : "mtime";
    line["hours"] = hours;
    line["dumps"] = paths;
    add_memory_columns(line, memory);
  };
  if (memory && memory->is_object()) {
    // One line for the series itself (kind "memory", no signature), first:
    // a process that bloats has no leak row to carry its figures.
    json::object line{{"kind", "memory"},
                      {"signature", nullptr},
                      {"key", string_of(memory->as_object(), "verdictText")},
                      {"rank", 0}};
    for (const char* column :
         {"holder_class", "holder_type", "reach_kind", "reach", "root", "path", "growth_field",
          "growth_per_hour", "objects", "memsize", "retained", "instances"})
      line[column] = nullptr;
    line["growth"] = json::array();
    line["classes"] = json::array();
    line["sites"] = json::array();
    shared(line);
    out += json::serialize(line);
    out += '\n';
  }
  const json::value* leaks = field(explain, "leaks");
  if (!leaks || !leaks->is_array()) return out;
  std::size_t rank = 0;
  for (const auto& entry : leaks->as_array()) {
    if (!entry.is_object()) continue;
    const auto& row = entry.as_object();
    const json::value* holder = field(row, "holder");
    const json::object* holder_object =
        holder && holder->is_object() ? &holder->as_object() : nullptr;
    const json::value* reach = field(row, "reach");
    const json::object empty;
    const json::object& reach_object = reach && reach->is_object() ? reach->as_object() : empty;
    const json::value* growth = field(row, "growth");
    const json::array counts = growth_counts(row, dumps.size());
    const std::string growth_field =
        growth && growth->is_object() ? string_of(growth->as_object(), "field") : "";
    json::object line{
        {"kind", "leak"},
        {"signature", string_of(row, "signature")},
        {"key", string_of(row, "key")},
        {"rank", ++rank},
        {"holder_class", holder_object ? nullable_string(string_of(*holder_object, "class"))
                                       : json::value(nullptr)},
        {"holder_type",
         holder_object ? nullable_string(string_of(*holder_object, "type")) : json::value(nullptr)},
        {"reach_kind", nullable_string(string_of(reach_object, "kind"))},
        {"reach", nullable_string(string_of(reach_object, "name"))},
        {"root", nullable_string(string_of(row, "root"))},
        {"path", copy_or_null(row, "pathNames")},
        {"growth_field", nullable_string(growth_field)},
        {"growth", counts},
        {"growth_per_hour", growth_per_hour(counts, dumps)},
        {"objects", copy_or_null(row, "count")},
        {"memsize", copy_or_null(row, "memsize")},
        {"retained", copy_or_null(row, "retained")},
        {"instances", copy_or_null(row, "instances")},
        {"classes", classes_of(row)},
        {"sites", sites_of(row)},
    };
    shared(line);
    out += json::serialize(line);
    out += '\n';
  }
  return out;
}

}  // namespace heapleak::results
