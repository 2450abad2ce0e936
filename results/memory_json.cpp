#include "results/memory_json.h"

#include <boost/json/array.hpp>

namespace heapleak::results {
namespace json = boost::json;
namespace {

json::value bytes_or_null(const std::optional<std::int64_t>& value) {
  return value ? json::value(*value) : json::value(nullptr);
}

json::object part(const char* name, const char* label, const json::value& bytes) {
  return json::object{{"name", name}, {"label", label}, {"bytes", bytes}};
}

// "row 1 (Array in Registry: 300 Zlib::Deflate)"
std::string named_row(const NativeRow& row) {
  return "row " + std::to_string(row.rank) + " (" + row.key + ": " +
         std::to_string(row.native.top_count) + " " + row.native.top_class + ")";
}

}  // namespace

json::value row_native_json(const RowNative& native) {
  if (native.data_objects == 0) return nullptr;
  return json::object{{"dataObjects", native.data_objects},
                      {"bytes", native.native_bytes},
                      {"undercounted", native.undercounted},
                      {"class", native.top_class},
                      {"classObjects", native.top_count}};
}

json::object memory_json(const MemoryEvidence& evidence) {
  const MemoryAccounting& a = evidence.accounting;
  json::value rss = nullptr;
  bool any_rss = false;
  json::array per_dump;
  for (const auto& value : evidence.rss) {
    any_rss = any_rss || value.has_value();
    per_dump.push_back(value ? json::value(*value) : json::value(nullptr));
  }
  if (any_rss) rss = std::move(per_dump);

  json::array parts{
      part("rubyObjects", "Ruby objects", a.ruby_objects),
      part("freeHeapSlots", "free heap slots", bytes_or_null(a.free_heap_slots)),
      part("mallocOutsideObjects", "malloc in use outside objects",
           bytes_or_null(a.malloc_outside_objects)),
      part("mallocFreeHeld", "malloc free but held", bytes_or_null(a.malloc_free_held)),
      part("fileBacked", "file-backed", bytes_or_null(a.file_backed)),
      part("unexplained", "unexplained", bytes_or_null(a.unexplained)),
  };

  json::array native_rows;
  for (std::size_t k = 0; k < evidence.native_rows.size() && k < kNativeRowsNamed; ++k) {
    const NativeRow& row = evidence.native_rows[k];
    json::object entry = row_native_json(row.native).as_object();
    entry["rank"] = row.rank;
    entry["key"] = row.key;
    native_rows.push_back(std::move(entry));
  }

  // The native verdict names the rows that hold DATA objects: what to close.
  std::string verdict_text = a.verdict_line;
  if (a.verdict == MemoryVerdict::nativeMemory && !evidence.native_rows.empty()) {
    verdict_text += "; DATA objects are held by " + named_row(evidence.native_rows.front());
    for (std::size_t k = 1; k < evidence.native_rows.size() && k < kNativeRowsNamed; ++k)
      verdict_text += ", " + named_row(evidence.native_rows[k]);
  }
  json::array try_next;
  if (!a.what_to_try.empty()) try_next.emplace_back(a.what_to_try);
  json::array notes;
  for (const auto& note : a.notes) notes.emplace_back(note);

  return json::object{
      {"from", a.from},
      {"to", a.to},
      {"rss", std::move(rss)},
      {"rssGrowth", bytes_or_null(a.rss_growth)},
      {"objectsGrowth", a.objects_growth},
      {"parts", std::move(parts)},
      {"leakRows", json::object{{"bytes", evidence.leak_rows_bytes},
                                {"from", evidence.rows_from},
                                {"to", evidence.rows_to},
                                {"rubyObjects", evidence.rows_span_growth}}},
      {"nativeRows", std::move(native_rows)},
      {"allocator", a.allocator.empty() ? json::value(nullptr) : json::value(a.allocator)},
      {"verdict", memory_verdict_name(a.verdict)},
      {"verdictText", std::move(verdict_text)},
      {"tryNext", std::move(try_next)},
      {"notes", std::move(notes)},
      {"doc", kMemoryDoc},
  };
}

}  // namespace heapleak::results
