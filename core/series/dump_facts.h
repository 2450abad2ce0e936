// What is known of a dump without loading it: the process that wrote it and
// when, from its capture manifest (core/reading/dump_manifest.h) when there is one,
// else the file's modification time. The leak table (`explain --format
// jsonl`) names each row's process and dump times with it, and `heapleak
// fleet` groups dumps into series and orders them by it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/reading/dump_manifest.h"

namespace heapleak {

struct DumpFacts {
  std::string path;
  std::optional<DumpManifest> manifest;
  // When the dump was taken: the manifest's capture.started_at, else the
  // file's mtime; ISO 8601 UTC and seconds since the epoch (NaN: unknown,
  // the file cannot be stat'ed and the manifest says nothing usable).
  std::string dumped_at;
  double dumped_epoch = 0;
  bool time_from_manifest = false;
};

DumpFacts dump_facts(const std::string& path);

// The series a dump belongs to: "HOST/PID/STARTED" from its manifest (one
// process), else its directory ("." for a bare name).
std::string series_of(const DumpFacts& dump);

// "2026-12-05T05:29:29.123456Z" (or +00:00, or no fraction) -> seconds since
// the epoch; nullopt for anything else.
std::optional<double> iso8601_seconds(std::string_view text);

// Seconds since the epoch as "2026-12-05T05:29:29.123Z".
std::string iso8601_utc(double seconds);

}  // namespace heapleak
