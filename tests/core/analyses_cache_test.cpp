// The analyses kept next to a cache image (core/images/analyses_image.h): a heap
// reopened from the cache maps the root paths and dominator tree an earlier
// process computed, equal to freshly computed ones for every object; a
// damaged, cut, foreign-version or stale analyses file is deleted with a
// warning and the analyses are computed again, never trusted.
#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "core/graph/dominators.h"
#include "core/graph/root_paths.h"
#include "core/heap/analysis_cost.h"
#include "core/images/analyses_image.h"
#include "core/images/cached_load.h"
#include "core/images/heap_cache.h"
#include "core/images/heap_image_format.h"
#include "core/loading/loader.h"
#include "tests/core/cache_test_support.h"
#include "tests/support/image_forge.h"

using namespace heapleak;
using namespace heapleak::test;
namespace fs = std::filesystem;

namespace {

// Every object's root path parent and category, idom, retained size and
// preorder number, and the counts: `mapped` answers as `fresh` does.
void require_same_analyses(const Heap& fresh, const Heap& mapped) {
  REQUIRE(fresh.size() == mapped.size());
  const RootPaths& a = fresh.root_paths();
  const RootPaths& b = mapped.root_paths();
  const DominatorTree& x = fresh.dominators();
  const DominatorTree& y = mapped.dominators();
  CHECK(a.reachable_count() == b.reachable_count());
  CHECK(x.reachable_count() == y.reachable_count());
  CHECK(x.unreachable_count() == y.unreachable_count());
  CHECK(x.unreachable_bytes() == y.unreachable_bytes());
  std::size_t differing = 0;
  for (ObjectIndex i = 0; i < fresh.size(); ++i) {
    if (a.reachable(i) != b.reachable(i) || a.parent(i) != b.parent(i) ||
        a.root_category(i) != b.root_category(i) || x.idom(i) != y.idom(i) ||
        x.retained(i) != y.retained(i) || x.preorder()[i] != y.preorder()[i] ||
        x.reachable(i) != y.reachable(i))
      ++differing;
  }
  CHECK(differing == 0);
  // Queries built on them read the same.
  const ObjectIndex some = static_cast<ObjectIndex>(fresh.size() / 2);
  CHECK(a.path_to(fresh, some).path == b.path_to(mapped, some).path);
  CHECK(fresh.analyses_bytes_used() == mapped.analyses_bytes_used());
}

struct Loaded {
  std::shared_ptr<const Heap> heap;
  std::vector<std::string> warnings;
};

// Loads through the cache; a miss's image is written at once (with the
// analyses `compute` asks for computed first, as the CLI writes at exit).
Loaded load(const HeapCache& cache, const std::string& dump, unsigned compute = kNoAnalysis) {
  CachedLoad loaded = load_heap_cached(&cache, dump);
  REQUIRE(loaded.heap);
  std::shared_ptr<const Heap> heap = *loaded.heap;
  if (compute & kRootPathsAnalysis) heap->root_paths();
  if (compute & kDominatorsAnalysis) heap->dominators();
  if (loaded.pending) REQUIRE_FALSE(loaded.pending->write());
  return Loaded{heap, heap->report().cache_warnings};
}

std::string analyses_file(const HeapCache& cache, const std::string& dump) {
  return HeapCache::analyses_path(cache.image_path(fs::canonical(dump), LoadMode::kFull));
}

}  // namespace

TEST_CASE("kept analyses reopen mapped, equal to freshly computed ones", "[cache][analyses]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  for (const char* name : {"rbheap-3dump/heap2.jsonl.gz", "heapy/my_dump_1.json.gz"}) {
    INFO(name);
    const std::string dump = dir / fs::path(name).filename().string();
    copy_file(fixture(name), dump);
    auto fresh = load_heap(dump);
    REQUIRE(fresh);
    auto cold = load(cache, dump, kRootPathsAnalysis | kDominatorsAnalysis);
    CHECK(cold.heap->report().cache == CacheUse::kMiss);
    REQUIRE(fs::exists(analyses_file(cache, dump)));
    CHECK(image::peek_analyses_image(analyses_file(cache, dump)) ==
          (kRootPathsAnalysis | kDominatorsAnalysis));

    auto warm = load(cache, dump);
    CHECK(warm.heap->report().cache == CacheUse::kHit);
    CHECK(warm.warnings.empty());
    // Seeded before any query: nothing to compute, nothing to admit.
    REQUIRE(warm.heap->has_root_paths());
    REQUIRE(warm.heap->has_dominators());
    CHECK(warm.heap->root_paths().mapped());
    CHECK(warm.heap->dominators().mapped());
    CHECK(analysis_peak_bytes(*warm.heap, kRootPathsAnalysis | kDominatorsAnalysis) == 0);
    require_same_analyses(**fresh, *warm.heap);
    // The refusals' floor (memory_fit, heapleakd without --max-memory) is
    // what the analyses keep at least, and about what they keep.
    const auto kept =
        analysis_kept_bytes((*fresh)->size(), kRootPathsAnalysis | kDominatorsAnalysis);
    CHECK(kept <= (*fresh)->analyses_bytes_used());
    CHECK(kept * 2 > (*fresh)->analyses_bytes_used());
    // Nothing new to keep: the file is not rewritten.
    const auto written = fs::last_write_time(analyses_file(cache, dump));
    CHECK_FALSE(cache.store_analyses(*warm.heap));
    CHECK(fs::last_write_time(analyses_file(cache, dump)) == written);
  }
  // Listed with their image, and cleared with it.
  const auto listed = cache.list();
  REQUIRE(listed.size() == 2);
  for (const auto& entry : listed) {
    CHECK(entry.analyses == (kRootPathsAnalysis | kDominatorsAnalysis));
    CHECK(entry.analyses_bytes > 0);
  }
  const auto cleared = cache.clear();
  CHECK(cleared.images == 2);
  CHECK(images_in(dir / "cache").empty());
}

TEST_CASE("analyses computed on a mapped heap are kept, one at a time", "[cache][analyses]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  load(cache, dump);  // the image alone
  CHECK_FALSE(fs::exists(analyses_file(cache, dump)));

  auto first = load(cache, dump);
  CHECK_FALSE(first.heap->has_root_paths());
  first.heap->root_paths();
  CHECK_FALSE(cache.store_analyses(*first.heap));
  CHECK(image::peek_analyses_image(analyses_file(cache, dump)) == kRootPathsAnalysis);

  auto second = load(cache, dump);
  CHECK(second.heap->has_root_paths());
  CHECK_FALSE(second.heap->has_dominators());
  second.heap->dominators();
  CHECK_FALSE(cache.store_analyses(*second.heap));
  CHECK(image::peek_analyses_image(analyses_file(cache, dump)) ==
        (kRootPathsAnalysis | kDominatorsAnalysis));
  auto fresh = load_heap(dump);
  REQUIRE(fresh);
  require_same_analyses(**fresh, *load(cache, dump).heap);
}

TEST_CASE("damaged, cut, foreign-version or stale analyses are deleted and computed again",
          "[cache][analyses]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  auto fresh = load_heap(dump);
  REQUIRE(fresh);
  load(cache, dump, kRootPathsAnalysis | kDominatorsAnalysis);
  const std::string file = analyses_file(cache, dump);
  REQUIRE(fs::exists(file));
  const auto size = fs::file_size(file);
  std::string why;

  SECTION("a flipped byte in the dominator tree") {
    write_byte(file, size - 200, static_cast<char>(read_byte(file, size - 200) ^ 0x10));
    why = "corrupt (checksum mismatch in section dominators.retained)";
  }
  SECTION("a flipped byte in the section table") {
    write_byte(file, sizeof(image::Header) + 70,
               static_cast<char>(read_byte(file, sizeof(image::Header) + 70) ^ 1));
    why = "corrupt (checksum mismatch in its header)";
  }
  SECTION("a cut file") {
    fs::resize_file(file, size / 3);
    why = "truncated";
  }
  SECTION("another format version") {
    write_byte(file, offsetof(image::Header, format_version),
               static_cast<char>(image::kAnalysesVersion + 1));
    why = "of another version";
  }
  SECTION("an image of a heap image: the wrong magic") {
    copy_file(cache.image_path(fs::canonical(dump), LoadMode::kFull), file);
    why = "corrupt (not a heapleak cache file";
  }
  SECTION("the image rebuilt since (the dump touched): the old analyses are stale") {
    const std::string saved = dir / "saved.hlana";
    copy_file(file, saved);
    struct timespec later[2] = {{0, UTIME_OMIT}, {::time(nullptr) + 5, 0}};
    REQUIRE(::utimensat(AT_FDCWD, dump.c_str(), later, 0) == 0);
    auto rebuilt = load(cache, dump);  // parsed again, a new image, no analyses
    CHECK(rebuilt.heap->report().cache == CacheUse::kRebuilt);
    CHECK_FALSE(fs::exists(file));  // went with the old image
    copy_file(saved, file);
    why = "stale (computed for an earlier image of the dump)";
  }
  auto again = load(cache, dump);
  CHECK(again.heap->report().cache == CacheUse::kHit);  // the image itself is sound
  REQUIRE(again.warnings.size() == 1);
  CHECK_THAT(again.warnings[0], Catch::Contains("the analyses kept for") && Catch::Contains(why));
  CHECK_FALSE(fs::exists(file));
  CHECK_FALSE(again.heap->has_root_paths());
  CHECK_FALSE(again.heap->has_dominators());
  require_same_analyses(**fresh, *again.heap);  // computed afresh
  CHECK_FALSE(again.heap->root_paths().mapped());
  // Kept again, and trusted next time.
  CHECK_FALSE(cache.store_analyses(*again.heap));
  auto next = load(cache, dump);
  CHECK(next.warnings.empty());
  CHECK(next.heap->dominators().mapped());
  require_same_analyses(**fresh, *next.heap);
}

TEST_CASE("forged analyses (valid checksums, values out of range or cycles) are refused",
          "[cache][analyses][forged]") {
  TempDir dir;
  const HeapCache cache({true, dir / "cache", std::uint64_t{1} << 30});
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  auto fresh = load_heap(dump);
  REQUIRE(fresh);
  const Heap& heap = **fresh;
  load(cache, dump, kRootPathsAnalysis | kDominatorsAnalysis);
  const std::string file = analyses_file(cache, dump);
  std::string bytes = read_whole(file);
  // Two reachable objects, one the parent of the other, neither a root target.
  const RootPaths& paths = heap.root_paths();
  ObjectIndex child = kNoObject;
  for (ObjectIndex i = 0; i < heap.size() && child == kNoObject; ++i) {
    if (paths.parent(i) != kNoObject && paths.parent(paths.parent(i)) != kNoObject) child = i;
  }
  REQUIRE(child != kNoObject);
  const ObjectIndex parent = paths.parent(child);
  const auto n = static_cast<std::uint32_t>(heap.size());
  const DominatorTree& tree = heap.dominators();
  ObjectIndex dominated = kNoObject;  // reachable, not a root target
  for (ObjectIndex i = 0; i < heap.size() && dominated == kNoObject; ++i) {
    if (tree.reachable(i) && tree.idom(i) != DominatorTree::kSuperRoot) dominated = i;
  }
  REQUIRE(dominated != kNoObject);
  ObjectIndex unreached = kNoObject;
  for (ObjectIndex i = 0; i < heap.size() && unreached == kNoObject; ++i) {
    if (!paths.reachable(i)) unreached = i;
  }
  std::string why;
  bool forged = false;
  SECTION("root paths in a cycle") {
    forged = forge_value<std::uint32_t>(bytes, "root_paths.parent", parent, child);
    why = "its root paths do not all lead to a root";
  }
  SECTION("an object its own root-path parent") {
    forged = forge_value<std::uint32_t>(bytes, "root_paths.parent", child, child);
    why = "its root paths do not all lead to a root";
  }
  SECTION("a root-path parent past the objects") {
    forged = forge_value<std::uint32_t>(bytes, "root_paths.parent", child, n + 3);
    why = "a value out of range in section root_paths.parent";
  }
  SECTION("a root category past the table") {
    forged =
        forge_value<std::uint32_t>(bytes, "root_paths.parent", child, RootPaths::kRootBase + 999);
    why = "a value out of range in section root_paths.parent";
  }
  SECTION("a root path through an unreached object") {
    REQUIRE(unreached != kNoObject);
    forged = forge_value<std::uint32_t>(bytes, "root_paths.parent", child, unreached);
    why = "its root paths do not all lead to a root";
  }
  SECTION("an idom that is its own object") {
    forged = forge_value<ObjectIndex>(bytes, "dominators.idom", dominated, dominated);
    why = "a value out of range in section dominators.idom";
  }
  SECTION("an idom past the objects") {
    forged = forge_value<ObjectIndex>(bytes, "dominators.idom", dominated, n + 1);
    why = "a value out of range in section dominators.idom";
  }
  SECTION("a preorder number past the reachable objects") {
    forged = forge_value<std::uint32_t>(bytes, "dominators.preorder", dominated, n + 100);
    why = "a value out of range in section dominators.preorder";
  }
  REQUIRE(forged);
  write_whole(file, bytes);
  auto again = load(cache, dump);
  CHECK(again.heap->report().cache == CacheUse::kHit);  // the image itself is sound
  REQUIRE(again.warnings.size() == 1);
  CHECK_THAT(again.warnings[0], Catch::Contains("the analyses kept for") && Catch::Contains(why));
  CHECK_FALSE(fs::exists(file));
  CHECK_FALSE(again.heap->has_root_paths());
  CHECK_FALSE(again.heap->has_dominators());
  require_same_analyses(heap, *again.heap);  // computed afresh, and it ends
}

TEST_CASE("an image and its analyses are evicted together; orphan analyses go",
          "[cache][analyses]") {
  TempDir dir;
  const std::string cache_dir = dir / "cache";
  const HeapCache cache({true, cache_dir, std::uint64_t{1} << 30});
  const std::string dump = dir / "heap2.jsonl.gz";
  copy_file(fixture("rbheap-3dump/heap2.jsonl.gz"), dump);
  load(cache, dump, kRootPathsAnalysis | kDominatorsAnalysis);
  REQUIRE(images_in(cache_dir).size() == 2);
  const std::string image = cache.image_path(fs::canonical(dump), LoadMode::kFull);
  const auto image_bytes = fs::file_size(image);
  // A cap that holds the image but not image and analyses: both go.
  const HeapCache capped({true, cache_dir, image_bytes + 100});
  capped.evict();
  CHECK(images_in(cache_dir).empty());

  load(cache, dump, kRootPathsAnalysis | kDominatorsAnalysis);
  REQUIRE(images_in(cache_dir).size() == 2);
  fs::remove(image);
  cache.evict();
  CHECK(images_in(cache_dir).empty());
}
