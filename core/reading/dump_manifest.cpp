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

// Reads the figures of one block of "memory" (rss, ruby_heap...). A missing
// block or figure is absent; one that is not a byte count (a string, a
// negative or fractional number, null) is absent too, with a warning.
class MemoryReader {
 public:
  MemoryReader(const std::string& path, std::vector<std::string>& warnings)
      : path_(path), warnings_(warnings) {}

  // Selects memory.<name>; false when absent (or not an object: a warning).
  bool block(simdjson::dom::element memory, const char* name) {
    name_ = name;
    simdjson::dom::element element;
    if (memory[name].get(element)) return false;
    if (element.get(block_)) {
      warn(std::string("memory.") + name + " is not an object");
      return false;
    }
    return true;
  }

  void figure(const char* key, std::optional<std::uint64_t>& out) {
    simdjson::dom::element element;
    if (block_[key].get(element)) return;
    std::uint64_t value = 0;
    if (element.get(value)) {
      warn("memory." + name_ + "." + key + " is not a byte count (" +
           std::string(simdjson::to_string(element)).substr(0, 40) + ")");
      return;
    }
    out = value;
  }

  std::string text(const char* key) {
    std::string_view value;
    if (block_[key].get(value)) return "";
    return std::string(value.substr(0, 40));
  }

  void warn(const std::string& what) {
    warnings_.push_back(path_ + ": " + what + ": left out of the memory figures");
  }

 private:
  const std::string& path_;
  std::vector<std::string>& warnings_;
  std::string name_;
  simdjson::dom::object block_;
};

std::optional<DumpMemory> read_memory(simdjson::dom::element root, const std::string& path,
                                      std::vector<std::string>& warnings) {
  simdjson::dom::element memory;
  if (root["memory"].get(memory)) return std::nullopt;
  MemoryReader reader(path, warnings);
  if (memory.type() != simdjson::dom::element_type::OBJECT) {
    reader.warn("memory is not an object");
    return std::nullopt;
  }
  DumpMemory m;
  if (reader.block(memory, "rss")) {
    reader.figure("rss", m.rss);
    reader.figure("pss", m.pss);
    reader.figure("anonymous", m.anonymous);
    reader.figure("file", m.file);
    reader.figure("swap", m.swap);
    if (m.rss && m.anonymous && *m.anonymous > *m.rss) {
      reader.warn("memory.rss.anonymous is above rss");
      m.anonymous.reset();
      m.file.reset();
    }
  }
  if (reader.block(memory, "ruby_heap")) {
    reader.figure("heap_allocated_pages", m.heap_allocated_pages);
    reader.figure("heap_live_slots", m.heap_live_slots);
    reader.figure("heap_free_slots", m.heap_free_slots);
    reader.figure("total_allocated_pages", m.total_allocated_pages);
    reader.figure("total_freed_pages", m.total_freed_pages);
    reader.figure("malloc_increase_bytes", m.malloc_increase_bytes);
    reader.figure("oldmalloc_increase_bytes", m.oldmalloc_increase_bytes);
    reader.figure("slot_size", m.slot_size);
    reader.figure("page_size", m.page_size);
    reader.figure("page_bytes", m.page_bytes);
    reader.figure("free_slot_bytes", m.free_slot_bytes);
    const std::string from = reader.text("pages_from");
    if (from == "malloc") m.pages_from_malloc = true;
    if (from == "mmap") m.pages_from_malloc = false;
  }
  if (reader.block(memory, "malloc")) {
    m.allocator = reader.text("allocator");
    reader.figure("in_use", m.malloc_in_use);
    reader.figure("free_held", m.malloc_free_held);
  }
  if (reader.block(memory, "memsize_of_all")) reader.figure("bytes", m.memsize_of_all);
  return m;
}

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
  std::uint64_t version = 0;
  if (!root["version"].get(version)) manifest.version = version;
  manifest.memory = read_memory(root, path, manifest.warnings);
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
