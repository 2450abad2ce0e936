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
  // The names carry the ivar that holds the next object (`UserCache.@cache`).
  const std::vector<std::string> names =
      path_names(heap, path.root, path.path, path_vias(heap, path.path));
  std::string text = "ROOT " + path.root;
  for (std::size_t k = 0; k < path.path.size(); ++k)
    text += " -> " + format_address(heap.address(path.path[k])) + " " + names[k + 1];
  return text;
}

}  // namespace heapleak::cli
