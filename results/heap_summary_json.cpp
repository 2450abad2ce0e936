#include "results/heap_summary_json.h"

#include "core/loading/load_warnings.h"

namespace heapleak::results {
namespace json = boost::json;

json::object heap_summary_json(const Heap& heap) {
  const LoadReport& report = heap.report();
  json::object roots;
  for (const auto& root : heap.roots()) roots[root.name] = root.targets.size();
  json::array broken;
  for (std::size_t k = 0; k < report.first_broken_lines.size(); ++k) {
    broken.push_back(json::object{{"line", report.first_broken_lines[k]},
                                  {"reason", report.first_broken_reasons[k]}});
  }
  const std::size_t bytes = heap.bytes_used();
  json::array warnings;
  for (const auto& warning : load_warnings(report)) warnings.emplace_back(warning);
  return json::object{
      {"path", report.path},
      {"gzip", report.gzip},
      {"objects", heap.size()},
      {"roots", std::move(roots)},
      {"rootRecords", report.root_records},
      {"shapes", report.shapes},
      {"references", report.references},
      {"missingReferences", report.missing_references},
      {"duplicateAddresses", report.duplicate_addresses},
      {"lines", report.lines},
      {"brokenLines", report.broken_lines},
      {"firstBrokenLines", std::move(broken)},
      {"traced", report.traced},
      {"fileBytes", report.file_bytes},
      {"streamBytes", report.stream_bytes},
      {"residentBytes", bytes},
      {"bytesPerObject", heap.size() == 0 ? 0.0 : static_cast<double>(bytes) / heap.size()},
      {"loadSeconds", report.seconds},
      {"cache", cache_use_name(report.cache)},
      {"truncated", looks_truncated(report)},
      {"warnings", std::move(warnings)},
  };
}

}  // namespace heapleak::results
