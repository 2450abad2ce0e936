#include "core/series/fleet_series.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

namespace heapleak {
namespace fs = std::filesystem;
namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool dump_name(const fs::path& path) {
  const std::string name = path.filename().string();
  if (name.empty() || name[0] == '.') return false;  // hidden: the gem's temporaries
  if (ends_with(name, ".manifest.json")) return false;
  // What dumps are named: NAME.json (dump_all's own), .jsonl, .ndjson, .dump,
  // each perhaps gzipped; looks_like_dump then reads the first record.
  for (const char* suffix : {".json", ".jsonl", ".ndjson", ".dump"})
    if (ends_with(name, suffix) || ends_with(name, std::string(suffix) + ".gz")) return true;
  return false;
}

void order_series(FleetSeries& series) {
  const bool by_gc = std::all_of(series.dumps.begin(), series.dumps.end(),
                                 [](const DumpFacts& d) { return d.manifest.has_value(); });
  std::stable_sort(series.dumps.begin(), series.dumps.end(),
                   [by_gc](const DumpFacts& a, const DumpFacts& b) {
                     if (by_gc && a.manifest->gc_count != b.manifest->gc_count)
                       return a.manifest->gc_count < b.manifest->gc_count;
                     if (a.dumped_epoch != b.dumped_epoch) return a.dumped_epoch < b.dumped_epoch;
                     return a.path < b.path;
                   });
}

}  // namespace

bool looks_like_dump(const std::string& path) {
  gzFile file = ::gzopen(path.c_str(), "rb");  // reads plain files as they are too
  if (!file) return false;
  char head[64] = {};
  const int got = ::gzread(file, head, sizeof head - 1);
  ::gzclose(file);
  if (got <= 0) return false;
  std::string_view text(head, static_cast<std::size_t>(got));
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return false;
  text.remove_prefix(start);
  return text.starts_with("{\"address\"") || text.starts_with("{\"type\"");
}

FleetScan find_fleet_series(const std::vector<std::string>& directories) {
  FleetScan scan;
  std::vector<std::string> paths;
  for (const auto& directory : directories) {
    std::error_code error;
    if (!fs::is_directory(directory, error)) {
      scan.errors.push_back(directory + ": not a directory");
      continue;
    }
    fs::recursive_directory_iterator it(directory, fs::directory_options::skip_permission_denied,
                                        error);
    for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      std::error_code type_error;
      if (it->is_regular_file(type_error) && dump_name(it->path()) &&
          looks_like_dump(it->path().string()))
        paths.push_back(it->path().string());
    }
    if (error) scan.errors.push_back(directory + ": " + error.message());
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  std::map<std::string, FleetSeries> groups;
  for (const auto& path : paths) {
    DumpFacts facts = dump_facts(path);
    const std::string group = series_of(facts);
    FleetSeries& series = groups[group];
    series.name = group;
    series.dumps.push_back(std::move(facts));
  }
  for (auto& [name, series] : groups) {
    // One process writes into one folder. Manifests that put one process in
    // several are copied or forged: merged, the two workers' dumps would be
    // one series and one worker's leak would vanish. Each folder stays a
    // series of its own, and the fleet says why.
    std::map<std::string, FleetSeries> by_folder;
    for (auto& dump : series.dumps)
      by_folder[fs::path(dump.path).parent_path().string()].dumps.push_back(std::move(dump));
    if (by_folder.size() > 1 &&
        std::any_of(by_folder.begin(), by_folder.end(), [](const auto& part) {
          return part.second.dumps.front().manifest.has_value();
        })) {
      scan.warnings.push_back(name + ": the manifests name one process, but its dumps lie in " +
                              std::to_string(by_folder.size()) + " folders (" +
                              by_folder.begin()->first + ", " +
                              std::next(by_folder.begin())->first +
                              "): copied or forged manifests? each folder is a series of its own");
      for (auto& [folder, part] : by_folder) {
        part.name = name + " in " + folder;
        order_series(part);
        scan.series.push_back(std::move(part));
      }
      continue;
    }
    series.dumps.clear();
    for (auto& [folder, part] : by_folder)
      for (auto& dump : part.dumps) series.dumps.push_back(std::move(dump));
    order_series(series);
    scan.series.push_back(std::move(series));
  }
  return scan;
}

std::vector<DumpFacts> dumps_to_compare(const FleetSeries& series, std::size_t at_most) {
  const std::size_t n = series.dumps.size();
  if (n <= at_most || at_most < 2) return series.dumps;
  std::vector<DumpFacts> out;
  for (std::size_t k = 0; k < at_most; ++k)
    out.push_back(series.dumps[k * (n - 1) / (at_most - 1)]);
  return out;
}

}  // namespace heapleak
