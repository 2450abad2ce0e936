// Where a series' RSS growth went, from its first dump to its last: Ruby
// objects, free heap slots, malloc in use outside the objects, malloc free
// but held, file-backed pages, and what is left unexplained; and a verdict in
// one line (a leak in the Ruby heap, native memory, bloat...) with what to
// try. Reads the capture manifests' memory figures (version 2) and the heaps'
// own figures; without manifests it says what the dumps alone tell.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/reading/dump_manifest.h"

namespace heapleak {

// What a dump says of its own memory: its objects and the sum of their
// memsize (each object's slot plus what it owns outside it, as its type's
// dsize reports it): a DumpSummary's (core/heap/dump_summary.h).
struct HeapFigures {
  std::uint64_t objects = 0;
  std::uint64_t bytes = 0;
};

// One dump of the series: its name in the line ("A", "D7"), its heap's
// figures and its manifest's memory block (nullopt: none recorded).
struct MemoryDump {
  std::string name;
  HeapFigures heap;
  std::optional<DumpMemory> memory;
};

enum class MemoryVerdict {
  rubyHeap,          // Ruby objects (their memsize) grew most: a leak in the Ruby heap
  nativeMemory,      // malloc in use outside what the objects' memsize counts
  fragmentation,     // malloc holds freed memory (bloat)
  heapPages,         // the Ruby heap holds pages of free slots (bloat)
  fileBacked,        // file-backed pages: code and gems mapped in, not memory
  unexplained,       // outside Ruby's and malloc's figures
  noGrowth,          // RSS grew by less than kMemoryNoGrowth
  notEnoughFigures,  // RSS (or malloc's figures) not recorded
};

// The wire's camelCase name of a verdict ("rubyHeap", "notEnoughFigures").
std::string_view memory_verdict_name(MemoryVerdict verdict);

// RSS growth under this is no growth (a process's RSS wanders by pages).
inline constexpr std::int64_t kMemoryNoGrowth = 1 << 20;

// The growth from the first dump to the last, each part in bytes (signed:
// a part may shrink), nullopt where a figure of either end is missing.
struct MemoryAccounting {
  std::string from, to;  // the dumps' names
  // Always known, from the heaps: objects and their bytes (sum of memsize).
  std::int64_t objects_growth = 0;
  std::int64_t ruby_objects = 0;
  // From the manifests.
  std::optional<std::uint64_t> rss_from, rss_to;
  std::optional<std::int64_t> rss_growth;
  std::optional<std::int64_t> file_backed;      // rss - anonymous
  std::optional<std::int64_t> free_heap_slots;  // free slots' bytes in pages held
  // malloc in use less what the objects' memsize counts outside their slots
  // (and less the heap pages, where Ruby takes them from malloc): memory of
  // C extensions, or of objects whose memsize under-counts.
  std::optional<std::int64_t> malloc_outside_objects;
  std::optional<std::int64_t> malloc_free_held;  // fragmentation
  // rss_growth less every part above that is known.
  std::optional<std::int64_t> unexplained;
  std::string allocator;  // "glibc", "jemalloc", "" when not recorded
  MemoryVerdict verdict = MemoryVerdict::notEnoughFigures;
  std::string verdict_line;  // one line, no sizes (the renderer has the parts)
  std::string what_to_try;   // "" when there is nothing to try
  // Where a figure was missing, clamped or approximate, one sentence each.
  std::vector<std::string> notes;
};

// The accounting of dumps.front() to dumps.back() (the others are not read;
// fewer than two dumps: notEnoughFigures).
MemoryAccounting account_memory(const std::vector<MemoryDump>& dumps);

}  // namespace heapleak
