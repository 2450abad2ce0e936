#include "core/reading/dump_manifest.h"

#include <simdjson.h>
#include <sys/stat.h>

namespace heapleak {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A manifest is a few KB; anything larger is not one.
constexpr off_t kMaxManifestBytes = 1 << 20;

}  // namespace

std::string process_key(const DumpManifest& manifest) {
  return manifest.hostname + "/" + std::to_string(manifest.pid) + "/" + manifest.started_at;
}

std::string manifest_path_for(const std::string& dump_path) {
  std::string stem = dump_path;
  if (ends_with(stem, ".gz")) stem.resize(stem.size() - 3);
  if (ends_with(stem, ".json")) stem.resize(stem.size() - 5);
  return stem + ".manifest.json";
}

std::optional<DumpManifest> read_manifest_for(const std::string& dump_path) {
  const std::string path = manifest_path_for(dump_path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxManifestBytes)
    return std::nullopt;
  simdjson::padded_string text;
  if (simdjson::padded_string::load(path).get(text)) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(text).get(root)) return std::nullopt;
  std::string_view format;
  if (root["format"].get(format) || format != "heapleak-capture-manifest") return std::nullopt;

  DumpManifest manifest;
  manifest.path = path;
  std::int64_t pid = 0;
  std::string_view started_at, hostname, mode, dumped_at;
  std::uint64_t gc_count = 0, compact_count = 0;
  if (root["process"]["pid"].get(pid) || root["process"]["started_at"].get(started_at) ||
      root["gc"]["count"].get(gc_count) || root["gc"]["compact_count"].get(compact_count))
    return std::nullopt;
  manifest.pid = pid;
  manifest.started_at = std::string(started_at);
  manifest.gc_count = gc_count;
  manifest.compact_count = compact_count;
  if (!root["process"]["hostname"].get(hostname)) manifest.hostname = std::string(hostname);
  if (!root["capture"]["mode"].get(mode)) manifest.mode = std::string(mode);
  if (!root["capture"]["started_at"].get(dumped_at)) manifest.dumped_at = std::string(dumped_at);
  bool tracing_on = false;
  if (!root["allocation_tracing"]["on"].get(tracing_on)) manifest.tracing_on = tracing_on;
  std::uint64_t since_gc = 0;
  if (!root["allocation_tracing"]["since_gc_count"].get(since_gc))
    manifest.tracing_since_gc = since_gc;
  simdjson::dom::array threads;
  if (!root["capture_objects"]["threads"].get(threads)) {
    for (simdjson::dom::element thread : threads) {
      std::string_view text;
      if (thread.get(text)) continue;
      if (auto address = parse_address(text)) manifest.capture_threads.push_back(*address);
      if (manifest.capture_threads.size() >= 64) break;  // a gem runs a handful
    }
  }
  return manifest;
}

}  // namespace heapleak
