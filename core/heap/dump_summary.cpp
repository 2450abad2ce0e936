#include "core/heap/dump_summary.h"

#include <algorithm>

namespace heapleak {

void settle_pages(std::vector<std::uint64_t>& pages) {
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
}

DumpSummary summary_of(const Heap& heap) {
  DumpSummary out;
  out.report = heap.report();
  out.objects = heap.size();
  out.traced = heap.has_allocation_info();
  const bool generations = heap.has_generation();
  std::uint64_t last_page = UINT64_MAX;
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    out.bytes += heap.memsize(i);
    ++out.by_type[static_cast<std::size_t>(heap.type(i))];
    const std::uint64_t page = heap.address(i) >> kHeapPageShift;
    if (page != last_page) out.pages.push_back(page);
    last_page = page;
    if (generations) {
      if (const auto g = heap.generation(i))
        out.newest_generation = std::max(out.newest_generation, *g);
    }
  }
  settle_pages(out.pages);
  return out;
}

}  // namespace heapleak
