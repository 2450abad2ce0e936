// The memory accounting (core/series/memory_accounting.h) of real dumps and
// their manifests, as JSON on one line, for memory_series_test.rb to check
// the verdict on the three programs' series until explain shows it.
// usage: memory_accounting_probe FIRST.json.gz ... LAST.json.gz
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "core/loading/loader.h"
#include "core/reading/dump_manifest.h"
#include "core/series/memory_accounting.h"

using namespace heapleak;

namespace {

std::string number(const std::optional<std::int64_t>& value) {
  return value ? std::to_string(*value) : "null";
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: memory_accounting_probe FIRST ... LAST\n";
    return 2;
  }
  std::vector<MemoryDump> dumps;
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    auto heap = load_heap(path);
    if (!heap) {
      std::cerr << path << ": " << heap.error().message << "\n";
      return 1;
    }
    MemoryDump dump{"D" + std::to_string(i), heap_figures(**heap), std::nullopt};
    if (auto manifest = read_manifest_for(path)) {
      for (const auto& warning : manifest->warnings) std::cerr << warning << "\n";
      dump.memory = manifest->memory;
    }
    dumps.push_back(std::move(dump));
  }
  const MemoryAccounting a = account_memory(dumps);
  std::string notes = "[";
  for (const auto& note : a.notes) notes += (notes.size() > 1 ? "," : "") + quoted(note);
  notes += "]";
  std::cout << "{\"verdict\":" << quoted(std::string(memory_verdict_name(a.verdict)))
            << ",\"line\":" << quoted(a.verdict_line) << ",\"rss_growth\":" << number(a.rss_growth)
            << ",\"ruby_objects\":" << a.ruby_objects << ",\"objects_growth\":" << a.objects_growth
            << ",\"file_backed\":" << number(a.file_backed)
            << ",\"free_heap_slots\":" << number(a.free_heap_slots)
            << ",\"malloc_outside_objects\":" << number(a.malloc_outside_objects)
            << ",\"malloc_free_held\":" << number(a.malloc_free_held)
            << ",\"unexplained\":" << number(a.unexplained) << ",\"notes\":" << notes << "}\n";
  return 0;
}
