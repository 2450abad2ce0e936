#include "clients/cli/text_format.h"

#include <cstdio>

#include "core/object_key.h"

namespace heapleak::cli {

std::string describe_object(const Heap& heap, ObjectIndex i) {
  std::string text = format_address(heap.address(i)) + " " + object_key(heap, i);
  if (auto site = allocation_site(heap, i); !site.empty()) text += " (" + site + ")";
  return text;
}

std::string describe_path(const Heap& heap, const RootPath& path) {
  if (path.path.empty()) return "(not reachable from a GC root)";
  std::string text = "ROOT " + path.root;
  for (ObjectIndex i : path.path)
    text += " -> " + format_address(heap.address(i)) + " " + object_key(heap, i);
  return text;
}

}  // namespace heapleak::cli
