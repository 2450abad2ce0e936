// The capture gem's manifests: found beside a dump by its stem, read, and
// anything that is not one ignored.
#include "core/reading/dump_manifest.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

using namespace heapleak;

namespace {

struct ScratchDir {
  std::string path;
  ScratchDir() {
    char pattern[] = "/tmp/heapleak-manifest-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~ScratchDir() { std::system(("rm -rf " + path).c_str()); }
};

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

constexpr const char* kManifest = R"({
  "format": "heapleak-capture-manifest", "version": 1, "dump": "B.json.gz", "name": "B",
  "process": {"pid": 4242, "ppid": 1, "started_at": "2026-12-05T01:55:09.92Z", "hostname": "web-1"},
  "gc": {"name": "default", "count": 31, "compact_count": 2},
  "capture": {"mode": "fork", "bytes": 10}
})";

}  // namespace

TEST_CASE("the manifest beside a dump is found by its stem", "[manifest]") {
  CHECK(manifest_path_for("/d/B.json.gz") == "/d/B.manifest.json");
  CHECK(manifest_path_for("/d/B.json") == "/d/B.manifest.json");
  CHECK(manifest_path_for("heap") == "heap.manifest.json");
}

TEST_CASE("a capture manifest is read; anything else is ignored", "[manifest]") {
  ScratchDir dir;
  const std::string dump = dir.path + "/B.json.gz";
  CHECK_FALSE(read_manifest_for(dump));  // none

  write(dir.path + "/B.manifest.json", kManifest);
  auto manifest = read_manifest_for(dump);
  REQUIRE(manifest);
  CHECK(manifest->pid == 4242);
  CHECK(manifest->started_at == "2026-12-05T01:55:09.92Z");
  CHECK(manifest->hostname == "web-1");
  CHECK(manifest->gc_count == 31);
  CHECK(manifest->compact_count == 2);
  CHECK(manifest->mode == "fork");

  write(dir.path + "/B.manifest.json", R"({"format": "something-else", "process": {"pid": 1}})");
  CHECK_FALSE(read_manifest_for(dump));
  write(dir.path + "/B.manifest.json", R"({"format": "heapleak-capture-manifest", "process": )");
  CHECK_FALSE(read_manifest_for(dump));
  write(dir.path + "/B.manifest.json",
        R"({"format": "heapleak-capture-manifest", "process": {"pid": "x"}})");
  CHECK_FALSE(read_manifest_for(dump));
}
