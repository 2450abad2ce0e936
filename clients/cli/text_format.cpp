#include "clients/cli/text_format.h"

#include <cstdio>

#include "core/naming.h"
#include "core/object_key.h"

namespace heapleak::cli {

std::string describe_object(const Heap& heap, ObjectIndex i) {
  std::string text = format_address(heap.address(i)) + " " + ruby_name(heap, i);
  if (auto site = allocation_site(heap, i); !site.empty()) text += " (" + site + ")";
  return text;
}

std::string describe_path(const Heap& heap, const RootPath& path) {
  if (path.path.empty()) return "(not reachable from a GC root)";
  std::string text = "ROOT " + path.root;
  for (ObjectIndex i : path.path)
    text += " -> " + format_address(heap.address(i)) + " " + ruby_name(heap, i);
  return text;
}

std::string human_bytes(std::uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace heapleak::cli
