// The series under some directories (`heapleak fleet`): every dump found (a
// .json/.jsonl/.ndjson/.dump file, perhaps .gz, whose first record is a
// dump_all record), grouped into the series of one process each: by the
// capture manifests' host, pid and process start time when a dump has one,
// else by directory (one process in several folders: one series per folder);
// each series ordered as taken (manifest GC count, else dump time, else name).
#pragma once

#include <string>
#include <vector>

#include "core/series/dump_facts.h"

namespace heapleak {

struct FleetSeries {
  std::string name;              // "HOST/PID/STARTED" or the directory
  std::vector<DumpFacts> dumps;  // in the order they were taken
};

struct FleetScan {
  std::vector<FleetSeries> series;  // by name
  std::vector<std::string> errors;  // directories that could not be read, with why
  // Series whose manifests name one process but whose dumps lie in several
  // folders: a worker's folder holds its own dumps, so manifests copied or
  // forged across folders would merge two workers' series. Each folder is
  // then a series of its own ("HOST/PID/STARTED in DIR"), and this says so.
  std::vector<std::string> warnings;
};

FleetScan find_fleet_series(const std::vector<std::string>& directories);

// Whether the file starts like an ObjectSpace.dump_all dump ({"address" or
// {"type" first, gzipped or not): a manifest, truth file or config is not one.
bool looks_like_dump(const std::string& path);

// The dumps of a series one explain run compares: all of them up to
// `at_most`, else the first, the last and evenly spaced ones between.
std::vector<DumpFacts> dumps_to_compare(const FleetSeries& series, std::size_t at_most);

}  // namespace heapleak
