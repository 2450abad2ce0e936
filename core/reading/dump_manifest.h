// The manifest the capture gem writes beside each dump (DIR/NAME.manifest.json
// for DIR/NAME.json[.gz], clients/ruby): which process wrote the dump and
// its GC counters then. When every dump of a series has one, whether they are
// one series is known, not guessed: the same pid and process start time, GC
// counts rising in order, no compaction (compact_count) in between.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/address.h"

namespace heapleak {

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
