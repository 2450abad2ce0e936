// What the passes read of a whole dump rather than of one object: its load
// report, how many objects and bytes it holds, by type, the 64 KiB heap
// pages its objects sit on and its newest allocation generation. The series
// check (core/series/dump_series.h), the memory accounting and the
// prepended-modules verdict read these; a dump streamed against B
// (core/diagnosis/streamed_counterparts.h) has them without a heap.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/heap/heap.h"

namespace heapleak {

// Ruby's heap pages are 64 KiB (aligned): a process keeps most of its pages
// from one dump to the next, even across GC.compact.
inline constexpr unsigned kHeapPageShift = 16;

struct DumpSummary {
  LoadReport report;
  std::uint64_t objects = 0;  // distinct addresses (Heap::size)
  std::uint64_t bytes = 0;    // the sum of their memsize, each saturated as Heap::memsize
  std::array<std::uint64_t, 64> by_type{};
  std::vector<std::uint64_t> pages;  // address >> kHeapPageShift, ascending, once each
  // The highest believed allocation generation (Heap::generation); 0
  // without believed generations (untraced, or sites trusted on none).
  std::uint32_t newest_generation = 0;
  bool traced = false;  // Heap::has_allocation_info: its sites are believed

  std::uint64_t count_of(ObjectType type) const { return by_type[static_cast<std::size_t>(type)]; }
};

DumpSummary summary_of(const Heap& heap);

// Sorts `pages` and drops repeats (a dump walks its pages in order: few).
void settle_pages(std::vector<std::uint64_t>& pages);

}  // namespace heapleak
