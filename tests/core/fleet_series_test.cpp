// heapleak fleet's discovery: what is a dump, when it was taken (manifest,
// else mtime), which series it belongs to and in what order.
#include "core/series/fleet_series.h"

#include <sys/time.h>
#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/series/dump_facts.h"

using namespace heapleak;

namespace {

struct ScratchDir {
  std::string path;
  ScratchDir() {
    char pattern[] = "/tmp/heapleak-fleet-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
};

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

void set_mtime(const std::string& path, double seconds) {
  const timeval times[2] = {{static_cast<time_t>(seconds), 0}, {static_cast<time_t>(seconds), 0}};
  ::utimes(path.c_str(), times);
}

constexpr const char* kDump = "{\"address\":\"0x1\", \"type\":\"STRING\"}\n";

std::string manifest(int pid, const char* host, int gc, const char* dumped_at) {
  return std::string(
             R"({"format": "heapleak-capture-manifest", "version": 1, "process": {"pid": )") +
         std::to_string(pid) + R"(, "started_at": "2026-03-02T07:00:00.00Z", "hostname": ")" +
         host + R"("}, "gc": {"count": )" + std::to_string(gc) +
         R"(, "compact_count": 0}, "capture": {"mode": "fork", "started_at": ")" + dumped_at +
         "\"}}";
}

}  // namespace

TEST_CASE("ISO 8601 times as the capture gem writes them", "[fleet]") {
  CHECK(iso8601_seconds("1970-01-01T00:00:00Z") == 0.0);
  CHECK(iso8601_seconds("2026-03-02T08:00:00Z") == 1772438400.0);
  CHECK(*iso8601_seconds("2026-03-02T08:00:00.250000Z") == Approx(1772438400.25));
  CHECK(iso8601_seconds("2026-03-02T09:00:00+01:00") == 1772438400.0);
  CHECK(iso8601_seconds("2026-03-02T08:00:00") == 1772438400.0);
  CHECK_FALSE(iso8601_seconds("yesterday"));
  CHECK_FALSE(iso8601_seconds("2026-13-02T08:00:00Z"));
  CHECK_FALSE(iso8601_seconds("2026-03-02T08:00:00.Z"));
  CHECK_FALSE(iso8601_seconds("2026-03-02T08:00:00 UTC"));
  CHECK(iso8601_utc(1772438400.25) == "2026-03-02T08:00:00.250Z");
}

TEST_CASE("a dump's time: its manifest's, else the file's mtime", "[fleet]") {
  ScratchDir dir;
  write(dir.path + "/a.json", kDump);
  set_mtime(dir.path + "/a.json", 1000);
  DumpFacts bare = dump_facts(dir.path + "/a.json");
  CHECK_FALSE(bare.manifest);
  CHECK_FALSE(bare.time_from_manifest);
  CHECK(bare.dumped_epoch == 1000.0);
  CHECK(bare.dumped_at == "1970-01-01T00:16:40.000Z");
  CHECK(series_of(bare) == dir.path);

  write(dir.path + "/a.manifest.json", manifest(7, "web-1", 10, "2026-03-02T08:00:00.000000Z"));
  DumpFacts known = dump_facts(dir.path + "/a.json");
  REQUIRE(known.manifest);
  CHECK(known.time_from_manifest);
  CHECK(known.dumped_epoch == 1772438400.0);
  CHECK(known.dumped_at == "2026-03-02T08:00:00.000000Z");
  CHECK(series_of(known) == "web-1/7/2026-03-02T07:00:00.00Z");

  CHECK(std::isnan(dump_facts(dir.path + "/missing.json").dumped_epoch));
}

TEST_CASE("only files that start like a dump are dumps, gzipped or not", "[fleet]") {
  ScratchDir dir;
  write(dir.path + "/plain.json", kDump);
  write(dir.path + "/root.json", "{\"type\":\"ROOT\", \"root\":\"vm\"}\n");
  write(dir.path + "/truth.json", "{\"generator\":\"heapleak-synth\"}\n");
  write(dir.path + "/empty.json", "");
  gzFile gz = ::gzopen((dir.path + "/packed.json.gz").c_str(), "wb");
  ::gzputs(gz, kDump);
  ::gzclose(gz);
  CHECK(looks_like_dump(dir.path + "/plain.json"));
  CHECK(looks_like_dump(dir.path + "/root.json"));
  CHECK(looks_like_dump(dir.path + "/packed.json.gz"));
  CHECK_FALSE(looks_like_dump(dir.path + "/truth.json"));
  CHECK_FALSE(looks_like_dump(dir.path + "/empty.json"));
  CHECK_FALSE(looks_like_dump(dir.path + "/none.json"));
}

TEST_CASE("series: one process by manifest wherever its files are, else one directory", "[fleet]") {
  ScratchDir dir;
  // Two workers in one host directory, their names and mtimes backwards:
  // only the GC counts order them.
  for (int w = 0; w < 2; ++w) {
    const char* names[3] = {"z", "y", "x"};
    for (int n = 0; n < 3; ++n) {
      const std::string stem = dir.path + "/web-1/w" + std::to_string(w) + "-" + names[n];
      write(stem + ".json", kDump);
      set_mtime(stem + ".json", 5000 - n * 100);
      write(stem + ".manifest.json",
            manifest(100 + w, "web-1", 10 + n,
                     ("2026-03-02T08:0" + std::to_string(n) + ":00Z").c_str()));
    }
  }
  // No manifests: one series per directory, ordered by mtime.
  write(dir.path + "/old/b.json", kDump);
  write(dir.path + "/old/a.json", kDump);
  set_mtime(dir.path + "/old/a.json", 3000);
  set_mtime(dir.path + "/old/b.json", 2000);
  write(dir.path + "/old/notes.json", "{\"note\": 1}\n");
  write(dir.path + "/old/.tmp.json", kDump);  // the gem's temporaries are hidden
  write(dir.path + "/single/only.jsonl", kDump);
  write(dir.path + "/single/only.txt", kDump);  // not a dump's name

  const FleetScan scan = find_fleet_series({dir.path, dir.path + "/absent"});
  REQUIRE(scan.errors.size() == 1);
  CHECK(scan.errors[0].find("/absent: not a directory") != std::string::npos);
  REQUIRE(scan.series.size() == 4);
  CHECK(scan.series[0].name == dir.path + "/old");
  CHECK(scan.series[1].name == dir.path + "/single");
  CHECK(scan.series[2].name == "web-1/100/2026-03-02T07:00:00.00Z");
  CHECK(scan.series[3].name == "web-1/101/2026-03-02T07:00:00.00Z");
  REQUIRE(scan.series[0].dumps.size() == 2);
  CHECK(scan.series[0].dumps[0].path == dir.path + "/old/b.json");
  CHECK(scan.series[1].dumps.size() == 1);
  for (int w = 0; w < 2; ++w) {
    const auto& dumps = scan.series[2 + w].dumps;
    REQUIRE(dumps.size() == 3);
    const std::string stem = dir.path + "/web-1/w" + std::to_string(w) + "-";
    CHECK(dumps[0].path == stem + "z.json");
    CHECK(dumps[1].path == stem + "y.json");
    CHECK(dumps[2].path == stem + "x.json");
  }
}

TEST_CASE("one process's manifests in two folders: a series per folder, and a warning", "[fleet]") {
  // Forged (or copied) manifests: two workers' folders claim one process.
  // Merged, one worker's leak would vanish into the other's series.
  ScratchDir dir;
  for (const char* worker : {"w1", "w2"}) {
    for (int n = 0; n < 2; ++n) {
      const std::string stem = dir.path + "/" + worker + "/d" + std::to_string(n);
      write(stem + ".json", kDump);
      write(stem + ".manifest.json", manifest(4000, "web-1", 10 + n, "2026-03-02T08:00:00Z"));
    }
  }
  const FleetScan scan = find_fleet_series({dir.path});
  REQUIRE(scan.series.size() == 2);
  CHECK(scan.series[0].name == "web-1/4000/2026-03-02T07:00:00.00Z in " + dir.path + "/w1");
  CHECK(scan.series[1].name == "web-1/4000/2026-03-02T07:00:00.00Z in " + dir.path + "/w2");
  CHECK(scan.series[0].dumps.size() == 2);
  CHECK(scan.series[1].dumps.size() == 2);
  REQUIRE(scan.warnings.size() == 1);
  CHECK(scan.warnings[0].find("lie in 2 folders") != std::string::npos);
}

TEST_CASE("a long series is compared on its first, middle and last dumps", "[fleet]") {
  FleetSeries series;
  for (int k = 0; k < 5; ++k) series.dumps.push_back(DumpFacts{std::to_string(k)});
  auto paths = [](const std::vector<DumpFacts>& dumps) {
    std::vector<std::string> out;
    for (const auto& d : dumps) out.push_back(d.path);
    return out;
  };
  CHECK(paths(dumps_to_compare(series, 3)) == std::vector<std::string>{"0", "2", "4"});
  CHECK(paths(dumps_to_compare(series, 5)).size() == 5);
  series.dumps.resize(2);
  CHECK(paths(dumps_to_compare(series, 3)) == std::vector<std::string>{"0", "1"});
}
