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

namespace {

std::string manifest_with(const std::string& version, const std::string& memory) {
  return R"({"format": "heapleak-capture-manifest", "version": )" + version +
         R"(, "process": {"pid": 7, "started_at": "t"}, "gc": {"count": 3, "compact_count": 0})" +
         (memory.empty() ? "" : R"(, "memory": )" + memory) + "}";
}

}  // namespace

TEST_CASE("version 1 has no memory figures and is still read", "[manifest][memory]") {
  ScratchDir dir;
  write(dir.path + "/A.manifest.json", manifest_with("1", ""));
  auto manifest = read_manifest_for(dir.path + "/A.json");
  REQUIRE(manifest);
  CHECK(manifest->version == 1);
  CHECK(manifest->pid == 7);
  CHECK_FALSE(manifest->memory);
  CHECK(manifest->warnings.empty());
}

TEST_CASE("version 2's memory block is read into DumpMemory", "[manifest][memory]") {
  ScratchDir dir;
  write(dir.path + "/A.manifest.json", manifest_with("2", R"({
    "pid": 7, "taken_at": "2026-12-06T09:35:39.255950Z", "seconds": 0.0017,
    "rss": {"source": "smaps_rollup", "rss": 14589952, "pss": 10190848, "anonymous": 9023488,
            "swap": 0, "file": 5566464},
    "ruby_heap": {"heap_allocated_pages": 54, "heap_live_slots": 20497, "heap_free_slots": 1567,
                  "total_allocated_pages": 54, "total_freed_pages": 0, "malloc_increase_bytes": 15232,
                  "oldmalloc_increase_bytes": 15232, "slot_size": 40, "page_size": 16384,
                  "pages_from": "malloc", "page_bytes": 884736, "free_slot_bytes": 62680},
    "malloc": {"allocator": "glibc", "source": "mallinfo2", "arena": 3293184, "in_use": 4677680,
               "free_held": 65488, "mmapped": 1449984, "keepcost": 54528},
    "memsize_of_all": {"bytes": 1647106, "seconds": 0.0004}})"));
  auto manifest = read_manifest_for(dir.path + "/A.json.gz");
  REQUIRE(manifest);
  CHECK(manifest->version == 2);
  CHECK(manifest->warnings.empty());
  REQUIRE(manifest->memory);
  const DumpMemory& m = *manifest->memory;
  CHECK(m.rss == 14589952u);
  CHECK(m.pss == 10190848u);
  CHECK(m.anonymous == 9023488u);
  CHECK(m.file == 5566464u);
  CHECK(m.swap == 0u);
  CHECK(m.heap_allocated_pages == 54u);
  CHECK(m.heap_live_slots == 20497u);
  CHECK(m.heap_free_slots == 1567u);
  CHECK(m.total_allocated_pages == 54u);
  CHECK(m.total_freed_pages == 0u);
  CHECK(m.malloc_increase_bytes == 15232u);
  CHECK(m.oldmalloc_increase_bytes == 15232u);
  CHECK(m.slot_size == 40u);
  CHECK(m.page_size == 16384u);
  CHECK(m.page_bytes == 884736u);
  CHECK(m.free_slot_bytes == 62680u);
  CHECK(m.pages_from_malloc == true);
  CHECK(m.allocator == "glibc");
  CHECK(m.malloc_in_use == 4677680u);
  CHECK(m.malloc_free_held == 65488u);
  CHECK(m.memsize_of_all == 1647106u);
}

TEST_CASE("missing memory figures are absent, not zero", "[manifest][memory]") {
  ScratchDir dir;
  // The gem could read neither the allocator nor smaps_rollup: no blocks.
  write(dir.path + "/A.manifest.json",
        manifest_with("2", R"({"ruby_heap": {"heap_live_slots": 10, "pages_from": "mmap"}})"));
  auto manifest = read_manifest_for(dir.path + "/A.json");
  REQUIRE(manifest);
  REQUIRE(manifest->memory);
  const DumpMemory& m = *manifest->memory;
  CHECK(m.heap_live_slots == 10u);
  CHECK(m.pages_from_malloc == false);
  CHECK_FALSE(m.rss);
  CHECK_FALSE(m.file);
  CHECK_FALSE(m.malloc_in_use);
  CHECK_FALSE(m.free_slot_bytes);
  CHECK_FALSE(m.memsize_of_all);
  CHECK(m.allocator.empty());
  CHECK(manifest->warnings.empty());
  // No memory block at all in version 2: no figures, no warning.
  write(dir.path + "/A.manifest.json", manifest_with("2", ""));
  manifest = read_manifest_for(dir.path + "/A.json");
  REQUIRE(manifest);
  CHECK_FALSE(manifest->memory);
  CHECK(manifest->warnings.empty());
}

TEST_CASE("malformed memory figures are left out with a warning, the rest is read",
          "[manifest][memory]") {
  ScratchDir dir;
  write(dir.path + "/A.manifest.json", manifest_with("2", R"({
    "rss": {"rss": "14 MB", "anonymous": 9023488, "pss": -5, "swap": 1.5, "file": null},
    "ruby_heap": [1, 2],
    "malloc": {"allocator": "glibc", "in_use": 4677680, "free_held": {"x": 1}}})"));
  auto manifest = read_manifest_for(dir.path + "/A.json");
  REQUIRE(manifest);
  CHECK(manifest->pid == 7);  // the rest of the manifest still counts
  REQUIRE(manifest->memory);
  const DumpMemory& m = *manifest->memory;
  CHECK_FALSE(m.rss);
  CHECK(m.anonymous == 9023488u);
  CHECK_FALSE(m.pss);
  CHECK_FALSE(m.swap);
  CHECK_FALSE(m.file);
  CHECK_FALSE(m.heap_live_slots);
  CHECK(m.malloc_in_use == 4677680u);
  CHECK_FALSE(m.malloc_free_held);
  const auto& w = manifest->warnings;
  REQUIRE(w.size() == 6);
  CHECK(w[0] == dir.path +
                    "/A.manifest.json: memory.rss.rss is not a byte count (\"14 MB\"): left out of "
                    "the memory figures");
  CHECK(w[1].find("memory.rss.pss is not a byte count (-5)") != std::string::npos);
  CHECK(w[2].find("memory.rss.file is not a byte count (null)") != std::string::npos);
  CHECK(w[3].find("memory.rss.swap is not a byte count (1.5)") != std::string::npos);
  CHECK(w[4].find("memory.ruby_heap is not an object") != std::string::npos);
  CHECK(w[5].find("memory.malloc.free_held is not a byte count") != std::string::npos);

  // anonymous above rss cannot be: both file and anonymous are dropped.
  write(dir.path + "/A.manifest.json",
        manifest_with("2", R"({"rss": {"rss": 100, "anonymous": 200, "file": 5}})"));
  manifest = read_manifest_for(dir.path + "/A.json");
  REQUIRE(manifest);
  CHECK(manifest->memory->rss == 100u);
  CHECK_FALSE(manifest->memory->anonymous);
  CHECK_FALSE(manifest->memory->file);
  CHECK(manifest->warnings.size() == 1);

  // memory itself not an object: no figures, a warning, the manifest read.
  write(dir.path + "/A.manifest.json", manifest_with("2", R"("lots")"));
  manifest = read_manifest_for(dir.path + "/A.json");
  REQUIRE(manifest);
  CHECK_FALSE(manifest->memory);
  REQUIRE(manifest->warnings.size() == 1);
  CHECK(manifest->warnings[0].find("memory is not an object") != std::string::npos);
}
