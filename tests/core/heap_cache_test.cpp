// The cache of parsed heaps: an image reopens as the same heap (every
// accessor equal), and an image that is damaged, cut, of another version or
// of a dump changed since is never trusted: it is deleted and rebuilt with a
// warning. Eviction removes the least recently used images first.
#include "core/images/heap_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/base/checksum.h"
#include "core/graph/dominators.h"
#include "core/images/cached_load.h"
#include "core/images/heap_image_format.h"
#include "core/loading/load_warnings.h"
#include "tests/core/cache_test_support.h"
#include "tests/core/same_heap.h"
#include "tests/core/test_dump.h"
#include "tests/support/image_forge.h"

using namespace heapleak;
using namespace heapleak::test;
namespace fs = std::filesystem;

namespace {

// Reloads through the cache and requires a rebuild whose warning says `why`.
void require_rebuilt(const HeapCache& cache, const std::string& dump, const Heap& parsed,
                     const std::string& why) {
  CachedLoad again = load_heap_cached(&cache, dump);
  REQUIRE(again.heap);
  const LoadReport& report = (*again.heap)->report();
  CHECK(report.cache == CacheUse::kRebuilt);
  REQUIRE(report.cache_warnings.size() == 1);
  CHECK_THAT(report.cache_warnings[0], Catch::Contains(why));
  auto warnings = load_warnings(report);
  CHECK(std::find(warnings.begin(), warnings.end(), report.cache_warnings[0]) != warnings.end());
  require_same_heap(parsed, **again.heap, /*same_file=*/false);
  // Rebuilt: the new image is written, and then reopened.
  REQUIRE(again.pending);
  REQUIRE_FALSE(again.pending->write());
  CHECK(cached_load(cache, dump)->report().cache == CacheUse::kHit);
}

}  // namespace

TEST_CASE("xxh64 gives the reference values", "[cache]") {
  CHECK(xxh64("", 0) == 0xEF46DB3751D8E999ULL);
  CHECK(xxh64("abc", 3) == 0x44BC2CF5AD770999ULL);
}

TEST_CASE("an image reopens as the same heap: every accessor, the report, roots, gzip index",
          "[cache]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  for (const char* name :
       {"heapy/my_dump_1.json.gz", "heap-profiler/ruby-3.2-partial-retained.heap",
        "rbheap-3dump/heap2.jsonl.gz"}) {
    INFO(name);
    const std::string dump = dir / fs::path(name).filename().string();
    copy_file(fixture(name), dump);
    auto parsed = cached_load(cache, dump);
    CHECK(parsed->report().cache == CacheUse::kMiss);
    auto mapped = cached_load(cache, dump);
    CHECK(mapped->report().cache == CacheUse::kHit);
    CHECK(mapped->report().cache_warnings.empty());
    require_same_heap(*parsed, *mapped);
    // The 3.2 dump has SHAPE records: the table must survive the image.
    if (std::string(name).find("3.2") != std::string::npos) CHECK(!mapped->shapes().empty());
    // Analyses run on the mapped columns alike.
    for (ObjectIndex i = 0; i < parsed->size(); i += 97) {
      CHECK(parsed->dominators().retained(i) == mapped->dominators().retained(i));
    }
  }
  // One image per dump, listed with what it holds.
  const auto listed = cache.list();
  REQUIRE(listed.size() == 3);
  for (const auto& entry : listed) {
    CHECK(entry.readable);
    CHECK(entry.objects > 0);
    CHECK(entry.mode == LoadMode::kFull);
    CHECK(fs::path(entry.dump_path).parent_path() == fs::canonical(dir.path()));
  }
  const auto cleared = cache.clear();
  CHECK(cleared.images == 3);
  CHECK(cache.list().empty());
}

TEST_CASE("a heap with broken lines and no tracing round-trips with its report", "[cache]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "broken.json";
  std::ofstream(dump) << join_lines({root_line("vm", {"0x100"}), class_line("0x10", "Foo"),
                                     object_line({"0x100", "ARRAY", "", {"0x200", "0x999"}}),
                                     "garbage", object_line({"0x200", "OBJECT", "0x10", {}})})
                      << R"({"address":"0x300", "type":"OBJ)";
  auto parsed = cached_load(cache, dump);
  auto mapped = cached_load(cache, dump);
  CHECK(mapped->report().cache == CacheUse::kHit);
  CHECK(mapped->report().ends_mid_line);
  CHECK(mapped->report().broken_lines == 2);
  require_same_heap(*parsed, *mapped);
  CHECK(load_warnings(parsed->report()) == load_warnings(mapped->report()));
}

TEST_CASE("a damaged, cut, foreign-version or stale image is deleted and rebuilt with a warning",
          "[cache]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  auto parsed = cached_load(cache, dump);
  const std::string image = only_image(dir / "cache");
  const auto size = fs::file_size(image);

  SECTION("a flipped byte in a column") {
    write_byte(image, size - 100, static_cast<char>(read_byte(image, size - 100) ^ 0x40));
    require_rebuilt(cache, dump, *parsed, "corrupt (checksum mismatch in section");
  }
  SECTION("a flipped byte in the section table") {
    write_byte(image, sizeof(image::Header) + 40,
               static_cast<char>(read_byte(image, sizeof(image::Header) + 40) ^ 1));
    require_rebuilt(cache, dump, *parsed, "corrupt (checksum mismatch in its header)");
  }
  SECTION("a truncated file") {
    fs::resize_file(image, size / 2);
    require_rebuilt(cache, dump, *parsed, "truncated");
  }
  SECTION("an empty file") {
    fs::resize_file(image, 0);
    require_rebuilt(cache, dump, *parsed, "truncated");
  }
  SECTION("another format version") {
    write_byte(image, offsetof(image::Header, format_version),
               static_cast<char>(kHeapImageVersion + 1));
    require_rebuilt(cache, dump, *parsed, "of another version");
  }
  SECTION("the dump rewritten: touched") {
    ::utimensat(AT_FDCWD, dump.c_str(), nullptr, 0);
    struct timespec later[2] = {{0, UTIME_OMIT}, {::time(nullptr) + 5, 0}};
    ::utimensat(AT_FDCWD, dump.c_str(), later, 0);
    require_rebuilt(cache, dump, *parsed, "stale");
  }
  SECTION("the dump rewritten in place, same size, mtime restored: the head hash differs") {
    struct stat before {};
    ::stat(dump.c_str(), &before);
    // gzip header byte 4-7 is the mtime field: changing it keeps the data valid.
    write_byte(dump, 4, static_cast<char>(read_byte(dump, 4) ^ 1));
    struct timespec same[2] = {before.st_atim, before.st_mtim};
    ::utimensat(AT_FDCWD, dump.c_str(), same, 0);
    require_rebuilt(cache, dump, *parsed, "stale");
  }
  SECTION("a plain dump edited in its middle, same size, mtime restored: the ctime differs") {
    // Past the head and tail the key hashes: only the ctime tells.
    const std::string plain = dir / "heap2.jsonl";
    REQUIRE(std::system(("gzip -dc " + dump + " > " + plain).c_str()) == 0);
    REQUIRE(fs::file_size(plain) > 4 * (64 << 10));
    cached_load(cache, plain);
    struct stat before {};
    ::stat(plain.c_str(), &before);
    const std::uint64_t middle = fs::file_size(plain) / 2;
    write_byte(plain, middle, static_cast<char>(read_byte(plain, middle) ^ 0x20));
    struct timespec same[2] = {before.st_atim, before.st_mtim};
    REQUIRE(::utimensat(AT_FDCWD, plain.c_str(), same, 0) == 0);
    CacheLookup found = cache.lookup(plain, LoadMode::kFull);
    CHECK(found.use == CacheUse::kRebuilt);
    REQUIRE(found.warnings.size() == 1);
    CHECK_THAT(found.warnings[0], Catch::Contains("stale"));
    return;
  }
  SECTION("a dump replaced by another file (new inode)") {
    const std::string other = dir / "other";
    copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), other);
    fs::rename(other, dump);
    require_rebuilt(cache, dump, *parsed, "stale");
  }
}

TEST_CASE("a forged image (valid checksums, values out of range) is refused and rebuilt",
          "[cache][forged]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  auto parsed = cached_load(cache, dump);
  const std::string image = only_image(dir / "cache");
  std::string bytes = read_whole(image);
  const auto n = static_cast<std::uint32_t>(parsed->size());
  REQUIRE(n > 10);
  std::string section;
  bool forged = false;
  SECTION("a string id past the string table") {
    section = "own_name";
    forged = forge_value<std::uint32_t>(bytes, section, 3, 0x7fffffffu);
  }
  SECTION("a class index past the objects") {
    section = "class_index";
    forged = forge_value<ObjectIndex>(bytes, section, 5, n + 7);
  }
  SECTION("an edge to no object") {
    section = "out_edges";
    forged = forge_value<ObjectIndex>(bytes, section, 0, n);
  }
  SECTION("a referrer past the objects") {
    section = "in_edges";
    forged = forge_value<ObjectIndex>(bytes, section, 2, 0xfffffff0u);
  }
  SECTION("edge offsets that go back") {
    section = "out_offsets";
    forged = forge_value<std::uint32_t>(bytes, section, n / 2, 0);
  }
  SECTION("edge offsets past the edges") {
    section = "in_offsets";
    forged = forge_value<std::uint32_t>(bytes, section, 1, 0xffffffffu);
  }
  SECTION("an unknown type") {
    section = "type";
    forged = forge_value<std::uint8_t>(bytes, section, 4, 200);
  }
  SECTION("addresses out of order") {
    section = "address";
    forged = forge_value<Address>(bytes, section, 1, 0);
  }
  SECTION("string ends out of order") {
    section = "names.ends";
    forged = forge_value<std::uint64_t>(bytes, section, 2, ~std::uint64_t{0});
  }
  REQUIRE(forged);
  write_whole(image, bytes);
  require_rebuilt(cache, dump, *parsed, "corrupt (a value out of range in section " + section);
}

TEST_CASE("a FIFO named like an image or its analyses neither blocks nor is used", "[cache]") {
  // Opening a FIFO for reading waits for a writer: before the type was
  // checked first, `cache list` and every load of the dump hung here.
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  auto parsed = cached_load(cache, dump);
  const std::string image = only_image(dir / "cache");
  const std::string analyses = HeapCache::analyses_path(image);
  SECTION("the image") {
    REQUIRE(::unlink(image.c_str()) == 0);
    REQUIRE(::mkfifo(image.c_str(), 0600) == 0);
    auto entries = cache.list();
    REQUIRE(entries.size() == 1);
    CHECK_FALSE(entries[0].readable);
    require_rebuilt(cache, dump, *parsed, "corrupt (not a regular file)");
  }
  SECTION("its analyses") {
    REQUIRE(::mkfifo(analyses.c_str(), 0600) == 0);
    CHECK(cache.list().size() == 1);
    CachedLoad again = load_heap_cached(&cache, dump);
    REQUIRE(again.heap);
    CHECK((*again.heap)->report().cache == CacheUse::kHit);
    REQUIRE((*again.heap)->report().cache_warnings.size() == 1);
    CHECK_THAT((*again.heap)->report().cache_warnings[0], Catch::Contains("not a regular file"));
    CHECK_FALSE(fs::exists(analyses));
  }
}

TEST_CASE("a full image serves an identity-only load, not the reverse", "[cache]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "heap1.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap1.jsonl.gz"), dump);
  auto identity = cached_load(cache, dump, LoadMode::kIdentityOnly);
  CHECK(identity->report().cache == CacheUse::kMiss);
  CHECK(cached_load(cache, dump, LoadMode::kIdentityOnly)->report().cache == CacheUse::kHit);
  CHECK_FALSE(identity->has_edges());
  // A full load cannot use the identity-only image: it parses (a miss, no
  // warning), and its full image replaces the identity-only one.
  auto full = cached_load(cache, dump, LoadMode::kFull);
  CHECK(full->report().cache == CacheUse::kMiss);
  CHECK(full->report().cache_warnings.empty());
  CHECK(full->has_edges());
  REQUIRE(images_in(dir / "cache").size() == 1);
  auto served = cached_load(cache, dump, LoadMode::kIdentityOnly);
  CHECK(served->report().cache == CacheUse::kHit);
  CHECK(served->has_edges());
  CHECK(served->size() == identity->size());
}

TEST_CASE("least recently used images are evicted first past the cap", "[cache]") {
  TempDir dir;
  const std::string cache_dir = dir / "cache";
  const char* names[] = {"heap1.jsonl.gz", "heap2.jsonl.gz", "heap3.jsonl.gz"};
  std::uint64_t image_bytes = 0;
  {
    const HeapCache unbounded({true, cache_dir, std::uint64_t{1} << 30});
    for (const char* name : names) {
      copy_file(fixture(std::string("rbheap-3dump/") + name), dir / name);
      cached_load(unbounded, dir / name);
    }
    // Last used: heap2 long ago, heap1 later, heap3 most recently.
    const time_t now = ::time(nullptr);
    const time_t used[] = {now - 200, now - 300, now - 100};
    for (int k = 0; k < 3; ++k) {
      const std::string image =
          unbounded.image_path(fs::canonical(dir / names[k]), LoadMode::kFull);
      struct timespec times[2] = {{used[k], 0}, {used[k], 0}};
      REQUIRE(::utimensat(AT_FDCWD, image.c_str(), times, 0) == 0);
      image_bytes = std::max<std::uint64_t>(image_bytes, fs::file_size(image));
    }
    REQUIRE(unbounded.list().size() == 3);
    CHECK(fs::path(unbounded.list().front().dump_path).filename() == "heap3.jsonl.gz");
  }
  // Room for two: heap2 (least recently used) goes.
  const HeapCache capped({true, cache_dir, image_bytes * 2 + image_bytes / 2});
  capped.evict();
  auto left = capped.list();
  REQUIRE(left.size() == 2);
  CHECK(fs::path(left[0].dump_path).filename() == "heap3.jsonl.gz");
  CHECK(fs::path(left[1].dump_path).filename() == "heap1.jsonl.gz");
  // Using heap1 makes it the most recent: heap3 goes next.
  CHECK(cached_load(capped, dir / "heap1.jsonl.gz")->report().cache == CacheUse::kHit);
  const HeapCache one({true, cache_dir, image_bytes + image_bytes / 4});
  one.evict();
  left = one.list();
  REQUIRE(left.size() == 1);
  CHECK(fs::path(left[0].dump_path).filename() == "heap1.jsonl.gz");
}

TEST_CASE("an unwritable cache directory is a warning, never a failed load", "[cache]") {
  TempDir dir;
  const std::string file = dir / "a-file";
  std::ofstream(file) << "not a directory";
  const HeapCache cache({true, file + "/cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "heap1.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap1.jsonl.gz"), dump);
  CachedLoad loaded = load_heap_cached(&cache, dump);
  REQUIRE(loaded.heap);
  CHECK((*loaded.heap)->size() > 0);
  CHECK_FALSE(loaded.pending);
  REQUIRE((*loaded.heap)->report().cache_warnings.size() == 1);
  CHECK_THAT((*loaded.heap)->report().cache_warnings[0], Catch::Contains("is not writable"));
}

TEST_CASE("a cache directory others may write is refused: no image read, written or cleared",
          "[cache]") {
  TempDir dir;
  const std::string cache_dir = dir / "cache";
  const HeapCache cache({true, cache_dir, std::uint64_t{1} << 30});
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  cached_load(cache, dump);  // an image, as another user could have planted it
  REQUIRE(cache.list().size() == 1);
  CHECK_FALSE(cache.unsafe());
  const mode_t mode = GENERATE(mode_t{0777}, mode_t{01777}, mode_t{0770});
  REQUIRE(::chmod(cache_dir.c_str(), mode) == 0);
  REQUIRE(cache.unsafe());
  CHECK_THAT(*cache.unsafe(), Catch::Contains("is writable by other users"));
  CachedLoad loaded = load_heap_cached(&cache, dump);
  REQUIRE(loaded.heap);
  const LoadReport& report = (*loaded.heap)->report();
  CHECK(report.cache == CacheUse::kOff);
  REQUIRE(report.cache_warnings.size() == 1);
  CHECK_THAT(report.cache_warnings[0],
             Catch::Contains("writable by other users: refusing to use it"));
  CHECK_FALSE(loaded.pending);
  CHECK(cache.list().empty());
  CHECK(cache.clear().images == 0);
  CHECK(images_in(cache_dir).size() == 1);  // left alone
  ::chmod(cache_dir.c_str(), 0700);
  CHECK(cached_load(cache, dump)->report().cache == CacheUse::kHit);
}

TEST_CASE("a killed writer's temporary file is listed, counted and deleted once it is gone",
          "[cache]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  cached_load(cache, dump);
  const std::string image = only_image(dir / "cache");
  // A process that is gone (reaped), and this one, still "writing".
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  ::waitpid(child, nullptr, 0);
  const std::string dead = image + ".tmp." + std::to_string(child) + ".1";
  const std::string alive = image + ".tmp." + std::to_string(::getpid()) + ".7";
  copy_file(image, dead);
  copy_file(image, alive);
  auto entries = cache.list();
  REQUIRE(entries.size() == 3);
  CHECK(std::count_if(entries.begin(), entries.end(), [](const CacheEntry& e) {
          return e.partial && !e.readable && e.bytes > 0;
        }) == 2);
  cache.evict();
  CHECK_FALSE(fs::exists(dead));
  CHECK(fs::exists(alive));
  // Counted toward the cap: a cap that holds the image alone evicts it.
  const HeapCache tight({true, dir / "cache", fs::file_size(image) + 100});
  tight.evict();
  CHECK_FALSE(fs::exists(image));
  CHECK(fs::exists(alive));  // being written: not the eviction's to delete
}

TEST_CASE("with the cache off, loads parse and say so", "[cache]") {
  TempDir dir;
  const HeapCache cache({false, dir / "cache", std::uint64_t{1} << 30});
  auto heap = cached_load(cache, fixture("rbheap-3dump/heap1.jsonl.gz"));
  CHECK(heap->report().cache == CacheUse::kOff);
  CHECK_FALSE(fs::exists(dir / "cache"));
}

TEST_CASE("a heap over the remap threshold is written at once and continues on its image",
          "[cache]") {
  TempDir dir;
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  auto parsed = load_heap(dump).value();
  for (LoadMode mode : {LoadMode::kFull, LoadMode::kIdentityOnly}) {
    INFO("mode " << static_cast<int>(mode));
    const std::string cache_dir = dir / ("cache" + std::to_string(static_cast<int>(mode)));
    const HeapCache cache({true, cache_dir, std::uint64_t{1} << 30, /*remap_above_bytes=*/0});
    LoadOptions options;
    options.mode = mode;
    CachedLoad loaded = load_heap_cached(&cache, dump, options);
    REQUIRE(loaded.heap);
    CHECK_FALSE(loaded.pending);  // already written
    CHECK_FALSE(loaded.warning);
    const Heap& remapped = **loaded.heap;
    // The parse's report (a miss), on columns that view the image.
    CHECK(remapped.report().cache == CacheUse::kMiss);
    CHECK(remapped.report().path == dump);
    CHECK(remapped.columns().address.is_view());
    CHECK(remapped.columns().memsize.is_view());
    CHECK(fs::exists(only_image(cache_dir)));
    if (mode == LoadMode::kFull) {
      require_same_heap(*parsed, remapped);
      CHECK(remapped.dominators().reachable_count() == parsed->dominators().reachable_count());
    } else {
      // Identity-only heaps have the identity columns only.
      auto ident = load_heap(dump, options).value();
      REQUIRE(ident->size() == remapped.size());
      CHECK(ident->columns().address == remapped.columns().address);
      CHECK(ident->columns().type == remapped.columns().type);
      CHECK(ident->columns().memsize == remapped.columns().memsize);
      CHECK(ident->columns().value_hash == remapped.columns().value_hash);
      CHECK(ident->columns().first_ref == remapped.columns().first_ref);
      CHECK(ident->columns().length == remapped.columns().length);
    }
    // The next load is a hit on the same image.
    CachedLoad again = load_heap_cached(&cache, dump, options);
    REQUIRE(again.heap);
    CHECK((*again.heap)->report().cache == CacheUse::kHit);
  }
}

TEST_CASE("a heap under the remap threshold stays parsed, its image written later", "[cache]") {
  TempDir dir;
  const std::string dump = dir / "heap1.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap1.jsonl.gz"), dump);
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30, std::uint64_t{1} << 30});
  CachedLoad loaded = load_heap_cached(&cache, dump);
  REQUIRE(loaded.heap);
  CHECK_FALSE((*loaded.heap)->columns().address.is_view());
  REQUIRE(loaded.pending);
  CHECK_FALSE(loaded.pending->write());
}

TEST_CASE("a heap that cannot be written stays parsed, with a warning", "[cache]") {
  TempDir dir;
  const std::string dump = dir / "heap1.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap1.jsonl.gz"), dump);
  // A cap smaller than the heap: store() refuses it.
  const HeapCache cache({true, dir / "cache", /*max_bytes=*/1024, /*remap_above_bytes=*/0});
  CachedLoad loaded = load_heap_cached(&cache, dump);
  REQUIRE(loaded.heap);
  CHECK((*loaded.heap)->size() > 0);
  CHECK_FALSE((*loaded.heap)->columns().address.is_view());
  CHECK_FALSE(loaded.pending);
  REQUIRE(loaded.warning);
  CHECK_THAT(*loaded.warning, Catch::Contains("larger than the cache cap"));
}
