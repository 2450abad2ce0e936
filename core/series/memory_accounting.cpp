#include "core/series/memory_accounting.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/heap/heap.h"

namespace heapleak {
namespace {

using Bytes = std::optional<std::int64_t>;

std::int64_t to_signed(std::uint64_t value) {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(value, INT64_MAX));
}

Bytes growth(const std::optional<std::uint64_t>& from, const std::optional<std::uint64_t>& to) {
  if (!from || !to) return std::nullopt;
  return to_signed(*to) - to_signed(*from);
}

// Free slots in the pages the heap holds, in bytes: the gem's own figure,
// else free slots x slot size (one size pool: Ruby 3.1).
std::optional<std::uint64_t> free_slot_bytes(const DumpMemory& m) {
  if (m.free_slot_bytes) return m.free_slot_bytes;
  if (m.heap_free_slots && m.slot_size) return *m.heap_free_slots * *m.slot_size;
  return std::nullopt;
}

// What malloc's in-use figure holds of the Ruby heap: the bytes objects own
// outside their slots (memsize less a slot each), and the heap pages when
// Ruby took them from malloc (3.1's posix_memalign). nullopt when a figure
// it needs is missing.
std::optional<std::uint64_t> objects_in_malloc(const MemoryDump& dump) {
  const DumpMemory& m = *dump.memory;
  if (!m.slot_size || !m.pages_from_malloc) return std::nullopt;
  const std::uint64_t slots = dump.heap.objects * *m.slot_size;
  std::uint64_t held = dump.heap.bytes > slots ? dump.heap.bytes - slots : 0;
  if (*m.pages_from_malloc) {
    if (!m.page_bytes) return std::nullopt;
    held += *m.page_bytes;
  }
  return held;
}

// malloc in use outside the objects at one dump; clamped to 0 (with a note)
// where memsize counts more than malloc has out (a buffer shared by several
// Strings is counted in each).
std::optional<std::uint64_t> outside_objects(const MemoryDump& dump,
                                             std::vector<std::string>& notes) {
  const auto in_use = dump.memory->malloc_in_use;
  const auto objects = objects_in_malloc(dump);
  if (!in_use || !objects) return std::nullopt;
  if (*objects > *in_use) {
    notes.push_back("in " + dump.name +
                    ", the objects' memsize (with the heap pages malloc holds) is above "
                    "malloc's bytes in use: memsize counts shared buffers more than once; malloc "
                    "outside objects clamped to 0 there");
    return 0;
  }
  return *in_use - *objects;
}

struct Advice {
  const char* line;
  const char* what_to_try;
};

Advice advice(MemoryVerdict verdict, const std::string& allocator) {
  switch (verdict) {
    case MemoryVerdict::rubyHeap:
      return {"a leak in the Ruby heap: Ruby objects grew most",
              "the leak rows say which objects grow and what holds them"};
    case MemoryVerdict::nativeMemory:
      return {
          "native memory held by objects: malloc in use outside what the objects' memsize "
          "counts grew most",
          "look for growing rows of DATA objects (C extension state: Zlib streams, parsers, "
          "connections; their memsize leaves out what they malloc): close or finish them"};
    case MemoryVerdict::fragmentation:
      if (allocator == "jemalloc")
        return {"bloat, not a leak: jemalloc holds freed memory (dirty pages)",
                "MALLOC_CONF=dirty_decay_ms:1000,muzzy_decay_ms:0 hands freed pages back sooner"};
      return {"bloat, not a leak: malloc holds freed memory (fragmentation)",
              "MALLOC_ARENA_MAX=2 caps glibc's arenas (threads each get one); jemalloc "
              "(LD_PRELOAD=libjemalloc.so.2) fragments less; malloc_trim(0) hands back the free "
              "pages at the top of each arena"};
    case MemoryVerdict::heapPages:
      return {"bloat, not a leak: the Ruby heap holds pages of free slots",
              "Ruby frees a heap page only when all its slots are empty: GC.compact (3.0+) after "
              "the spike moves objects out of sparse pages"};
    case MemoryVerdict::fileBacked:
      return {"not memory the process owns: file-backed pages (code, mapped gems) grew most", ""};
    case MemoryVerdict::unexplained:
      return {"most of the growth is outside the Ruby heap and malloc's figures",
              "memory neither Ruby nor malloc counts: mmap by C extensions, thread stacks; "
              "/proc/PID/smaps lists the mappings"};
    case MemoryVerdict::noGrowth:
      return {"RSS did not grow", ""};
    case MemoryVerdict::notEnoughFigures:
      break;
  }
  return {"not enough figures", ""};
}

// "86% of", or "more than all of" where malloc's bytes handed out exceed
// what became resident.
std::string share_of(std::int64_t part, std::int64_t whole) {
  if (part > whole) return "more than all of";
  return std::to_string(
             std::lround(100.0 * static_cast<double>(part) / static_cast<double>(whole))) +
         "% of";
}

}  // namespace

std::string_view memory_verdict_name(MemoryVerdict verdict) {
  switch (verdict) {
    case MemoryVerdict::rubyHeap:
      return "rubyHeap";
    case MemoryVerdict::nativeMemory:
      return "nativeMemory";
    case MemoryVerdict::fragmentation:
      return "fragmentation";
    case MemoryVerdict::heapPages:
      return "heapPages";
    case MemoryVerdict::fileBacked:
      return "fileBacked";
    case MemoryVerdict::unexplained:
      return "unexplained";
    case MemoryVerdict::noGrowth:
      return "noGrowth";
    case MemoryVerdict::notEnoughFigures:
      return "notEnoughFigures";
  }
  return "notEnoughFigures";
}

MemoryAccounting account_memory(const std::vector<MemoryDump>& dumps) {
  MemoryAccounting a;
  if (dumps.size() < 2) {
    a.verdict_line = "not enough figures: the accounting needs two dumps";
    return a;
  }
  const MemoryDump& first = dumps.front();
  const MemoryDump& last = dumps.back();
  a.from = first.name;
  a.to = last.name;
  a.objects_growth = to_signed(last.heap.objects) - to_signed(first.heap.objects);
  a.ruby_objects = to_signed(last.heap.bytes) - to_signed(first.heap.bytes);

  const bool recorded = first.memory && last.memory && first.memory->rss && last.memory->rss;
  if (!recorded) {
    a.verdict_line = "RSS was not recorded for " + a.from + " and " + a.to +
                     " (no version 2 capture manifests): only the Ruby heap's own growth is known";
    a.what_to_try =
        "take the series with heapleak-capture, whose manifests (version 2) record RSS and "
        "malloc's figures";
    return a;
  }
  const DumpMemory& m0 = *first.memory;
  const DumpMemory& m1 = *last.memory;
  a.rss_from = m0.rss;
  a.rss_to = m1.rss;
  a.rss_growth = growth(m0.rss, m1.rss);
  a.file_backed = growth(m0.file, m1.file);
  a.free_heap_slots = growth(free_slot_bytes(m0), free_slot_bytes(m1));
  if (!a.free_heap_slots)
    a.notes.push_back("the free heap slots' bytes were not recorded");
  else if (!m0.free_slot_bytes || !m1.free_slot_bytes)
    a.notes.push_back(
        "free heap slots counted at the base slot size (Ruby 3.2's size pools give no free count "
        "each): larger slots make it more");

  if (m0.allocator.empty() || m1.allocator.empty()) {
    a.notes.push_back(
        "malloc's figures were not recorded (an allocator the gem cannot read, or not x86-64): "
        "what malloc holds is in unexplained");
  } else if (m0.allocator != m1.allocator) {
    a.notes.push_back("the allocator differs between " + a.from + " (" + m0.allocator + ") and " +
                      a.to + " (" + m1.allocator + "): malloc's figures are not compared");
  } else {
    a.allocator = m0.allocator;
    const auto outside0 = outside_objects(first, a.notes);
    const auto outside1 = outside_objects(last, a.notes);
    a.malloc_outside_objects = growth(outside0, outside1);
    if (!a.malloc_outside_objects)
      a.notes.push_back(
          "malloc outside objects needs malloc's bytes in use, the slot size and "
          "where Ruby takes its heap pages from, at both ends");
    a.malloc_free_held = growth(m0.malloc_free_held, m1.malloc_free_held);
  }

  std::int64_t explained = a.ruby_objects;
  for (const Bytes& part :
       {a.file_backed, a.free_heap_slots, a.malloc_outside_objects, a.malloc_free_held})
    explained += part.value_or(0);
  a.unexplained = *a.rss_growth - explained;
  if (*a.unexplained <= -kMemoryNoGrowth)
    a.notes.push_back(
        "the parts add up to more than RSS grew: malloc counts the bytes it hands out, not the "
        "pages touched (a large chunk mapped and never written is not resident)");

  if (*a.rss_growth < kMemoryNoGrowth) {
    a.verdict = MemoryVerdict::noGrowth;
    a.verdict_line = "RSS did not grow from " + a.from + " to " + a.to;
    return a;
  }
  // The verdict is the part that grew most.
  const std::pair<MemoryVerdict, Bytes> parts[] = {
      {MemoryVerdict::rubyHeap, a.ruby_objects},
      {MemoryVerdict::nativeMemory, a.malloc_outside_objects},
      {MemoryVerdict::fragmentation, a.malloc_free_held},
      {MemoryVerdict::heapPages, a.free_heap_slots},
      {MemoryVerdict::fileBacked, a.file_backed},
      {MemoryVerdict::unexplained, a.unexplained},
  };
  const auto* top = &parts[0];
  for (const auto& part : parts)
    if (part.second.value_or(INT64_MIN) > top->second.value_or(INT64_MIN)) top = &part;
  a.verdict = top->first;
  if (a.verdict == MemoryVerdict::unexplained && a.allocator.empty()) {
    a.verdict = MemoryVerdict::notEnoughFigures;
    a.verdict_line = "not enough figures: most of the RSS growth from " + a.from + " to " + a.to +
                     " is not accounted for, and malloc's figures were not recorded";
    return a;
  }
  const Advice said = advice(a.verdict, a.allocator);
  a.verdict_line = std::string(said.line) + " (" + share_of(*top->second, *a.rss_growth) +
                   " the RSS growth from " + a.from + " to " + a.to + ")";
  a.what_to_try = said.what_to_try;
  return a;
}

}  // namespace heapleak
