// The manifest the capture gem writes beside each dump (DIR/NAME.manifest.json
// for DIR/NAME.json[.gz], clients/ruby): which process wrote the dump and
// its GC counters then. When every dump of a series has one, whether they are
// one series is known, not guessed: the same pid and process start time, GC
// counts rising in order, no compaction (compact_count) in between. From
// version 2 it also gives the process's memory at the dump (DumpMemory).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/address.h"

namespace heapleak {

// The process's memory when the dump was taken (manifest version 2,
// "memory"; docs/capture.md, "Memory figures in the manifest"). Bytes unless
// said; nullopt when the manifest does not give a figure (version 1, a
// figure the gem could not read, or one that was malformed: a warning).
struct DumpMemory {
  // The kernel's resident set (smaps_rollup): file = rss - anonymous.
  std::optional<std::uint64_t> rss, pss, anonymous, file, swap;
  // The Ruby heap (GC.stat): counts of pages and slots...
  std::optional<std::uint64_t> heap_allocated_pages, heap_live_slots, heap_free_slots;
  std::optional<std::uint64_t> total_allocated_pages, total_freed_pages;
  // ...and bytes: malloc growth since the last GC, one slot, one page, all
  // pages, the free slots in them.
  std::optional<std::uint64_t> malloc_increase_bytes, oldmalloc_increase_bytes;
  std::optional<std::uint64_t> slot_size, page_size, page_bytes, free_slot_bytes;
  // Ruby took its heap pages from malloc (3.1): they are inside
  // malloc_in_use. nullopt when not said.
  std::optional<bool> pages_from_malloc;
  // malloc's own view: "glibc" (mallinfo2) or "jemalloc" (mallctl), "" when
  // not recorded; bytes handed out, and free bytes it keeps (fragmentation).
  std::string allocator;
  std::optional<std::uint64_t> malloc_in_use, malloc_free_held;
  // ObjectSpace.memsize_of_all, when the capture was asked for it.
  std::optional<std::uint64_t> memsize_of_all;
};

struct DumpManifest {
  std::string path;  // the manifest file
  std::int64_t pid = 0;
  std::string started_at;  // the process's start time, as written
  std::string hostname;
  std::uint64_t gc_count = 0;
  std::uint64_t compact_count = 0;
  std::string mode;  // fork or inline
  // When the dump began (capture.started_at, ISO 8601 UTC); "" when absent.
  std::string dumped_at;
  // allocation_tracing: whether it was on for this dump, and GC.count when the
  // series turned it on (since_gc_count). The tracer's table outlives a
  // stopped trace and lends stale sites to new objects at reused addresses:
  // sites are believed only on objects of that generation or later. nullopt
  // when the manifest does not say (an older gem: sites are believed).
  std::optional<bool> tracing_on;
  std::optional<std::uint64_t> tracing_since_gc;
  // The capture gem's own threads (capture_objects.threads): what they hold
  // is the gem's, never the program's leak.
  std::vector<Address> capture_threads;
  // The manifest's format version (1 when it does not say).
  std::uint64_t version = 1;
  // Version 2's memory figures; nullopt in version 1 or when absent.
  std::optional<DumpMemory> memory;
  // What was wrong with the manifest but did not stop it being read (a
  // malformed figure, left out), one sentence each, naming the file.
  std::vector<std::string> warnings;
};

// The process a manifest names, as one key ("host/pid/start"): two dumps
// whose keys differ are not from one process (the series checks) and are not
// one series (heapleak fleet). A pid alone repeats across hosts and restarts.
std::string process_key(const DumpManifest& manifest);

// The manifest's path for a dump: A.json.gz and A.json -> A.manifest.json.
std::string manifest_path_for(const std::string& dump_path);

// Reads the manifest beside `dump_path`; nullopt when there is none or it is
// not a capture manifest (a damaged one is ignored: the heuristics apply).
std::optional<DumpManifest> read_manifest_for(const std::string& dump_path);

}  // namespace heapleak
