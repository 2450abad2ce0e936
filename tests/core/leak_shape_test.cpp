// What a cluster holds decides its verdict (issue 25, defects 1, 8, 10, 11):
// small three-dump heaps for each shape, A and C loaded identity-only as
// explain loads them, the dumps kept on disk so records can be read back.
#include "core/diagnosis/leak_shape.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>

#include "core/explain/explain_pipeline.h"
#include "core/heap/naming_runtime.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

std::string at(std::uint64_t offset) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(offset));
  return text;
}

// Three dumps on disk (records are read back) and the clusters of their diff.
struct Run {
  std::vector<std::unique_ptr<TempFile>> files;
  std::vector<std::shared_ptr<const Heap>> heaps;
  LeakClusters clusters;

  explicit Run(const std::function<std::string(int)>& dump) {
    for (int which = 0; which < 3; ++which) {
      files.push_back(std::make_unique<TempFile>(dump(which)));
      LoadOptions options;
      if (which != 1) options.mode = LoadMode::kIdentityOnly;
      auto heap = load_heap(files.back()->path(), options);
      REQUIRE(heap);
      heaps.push_back(*heap);
    }
    clusters = cluster_leaks(*heaps[0], *heaps[1], heaps[2].get(),
                             diff_heaps(*heaps[0], *heaps[1], heaps[2].get()));
  }
  const Heap& b() const { return *heaps[1]; }
};

const LeakCluster* find_row(const std::vector<LeakCluster>& rows, std::string_view start) {
  for (const auto& row : rows)
    if (row.key.starts_with(start)) return &row;
  return nullptr;
}

std::vector<std::string> core_classes() {
  return {class_line(at(0x10), "Object"), class_line(at(0x11), "Thread"),
          class_line(at(0x12), "Ractor"), class_line(at(0x13), "Proc"),
          class_line(at(0x14), "String"), class_line(at(0x15), "Array"),
          class_line(at(0x16), "Struct"), class_line(at(0x17), "BigDecimal"),
          class_line(at(0x18), "Hash")};
}

// The main Ractor holds `threads(which)` threads; each new one holds a job
// Struct with a BigDecimal, and a Proc.
std::string threads_dump(int which, const std::function<int(int)>& threads) {
  std::vector<std::string> lines = core_classes();
  lines.push_back(object_line(
      {at(0x20), "CLASS", "", {at(0x16)}, R"("name":"QuoteJob", "superclass":"0x16")"}));
  std::vector<std::string> held;
  for (int k = 0; k < threads(which); ++k) {
    const std::uint64_t base = 0x1000 + 0x100 * k;
    held.push_back(at(base));
    lines.push_back(object_line({at(base),
                                 "DATA",
                                 at(0x11),
                                 {at(base + 0x10), at(base + 0x30)},
                                 R"("struct":"VM/thread")"}));
    lines.push_back(object_line({at(base + 0x10), "STRUCT", at(0x20), {at(base + 0x20)}}));
    lines.push_back(
        object_line({at(base + 0x20), "DATA", at(0x17), {}, R"("struct":"BigDecimal")"}));
    lines.push_back(object_line({at(base + 0x30), "DATA", at(0x13), {}, R"("struct":"proc")"}));
  }
  lines.push_back(object_line({at(0x900), "DATA", at(0x12), held, R"("struct":"ractor")"}));
  lines.push_back(root_line("vm", {at(0x10), at(0x900)}));
  return join_lines(lines);
}

}  // namespace

TEST_CASE("threads never finished are a leak of the main Ractor, named as such", "[leak_shape]") {
  const Run run([](int which) { return threads_dump(which, [](int w) { return 1 + 2 * w; }); });
  REQUIRE(run.clusters.leaks.size() == 1);
  const LeakCluster& row = run.clusters.leaks[0];
  CHECK(row.key == "2 Threads never finished, each holding BigDecimal, QuoteJob");
  CHECK(run.b().address(row.holder) == 0x900);
  // the Ractor's thread count, read from A and C loaded without references
  CHECK(row.growth.field == "references");
  CHECK(row.growth.baseline == 1u);
  CHECK(row.growth.target == 3u);
  CHECK(row.growth.later == 5u);
}

TEST_CASE("threads a framework starts once are bounded", "[leak_shape]") {
  const Run run([](int which) { return threads_dump(which, [](int w) { return w ? 3 : 1; }); });
  CHECK(run.clusters.leaks.empty());
  const LeakCluster* row = find_row(run.clusters.noise, "2 Threads started between A and B");
  REQUIRE(row);
  CHECK(row->noise == NoiseReason::kBounded);
}

TEST_CASE("a Thread holder that stopped growing is bounded though C has no edges", "[leak_shape]") {
  // An old Thread (the connection pool's reaper) makes its Fiber on its first
  // run, between A and B: its references 2 -> 3 -> 3. Its first reference
  // (what its stack holds) differs in each dump: still the same Thread.
  auto dump = [](int which) {
    std::vector<std::string> lines = core_classes();
    lines.push_back(class_line(at(0x19), "Fiber"));
    std::vector<std::string> refs = {at(0x14 + which)};
    if (which >= 1) {
      refs.push_back(at(0x2000));
      lines.push_back(object_line({at(0x2000), "DATA", at(0x19), {}, R"("struct":"fiber")"}));
    }
    refs.push_back(at(0x10));
    lines.push_back(object_line({at(0x1000), "DATA", at(0x11), refs, R"("struct":"VM/thread")"}));
    lines.push_back(object_line({at(0x900), "DATA", at(0x12), {}, R"("struct":"ractor")"}));
    lines.push_back(root_line("vm", {at(0x10), at(0x1000)}));
    return join_lines(lines);
  };
  const Run run(dump);
  CHECK(run.clusters.leaks.empty());
  REQUIRE(run.clusters.noise.size() == 1);
  CHECK(run.clusters.noise[0].noise == NoiseReason::kBounded);
  CHECK(run.clusters.noise[0].growth.later == 3u);
}

TEST_CASE("objects kept alive by their own finalizer are a leak; finalizer tables are not",
          "[leak_shape]") {
  // finalizers root -> hidden Array [0, proc] -> Proc whose self is the Upload.
  auto dump = [](int which) {
    std::vector<std::string> lines = core_classes();
    lines.push_back(class_line(at(0x20), "Upload"));
    std::vector<std::string> tables;
    for (int k = 0; k < 1 + 2 * which; ++k) {
      const std::uint64_t base = 0x1000 + 0x100 * k;
      tables.push_back(at(base));
      lines.push_back(object_line({at(base), "ARRAY", "", {at(base + 0x10)}, R"("length":2)"}));
      lines.push_back(object_line(
          {at(base + 0x10), "DATA", at(0x13), {at(base + 0x20)}, R"("struct":"proc")"}));
      lines.push_back(object_line({at(base + 0x20), "OBJECT", at(0x20), {at(base + 0x30)}}));
      lines.push_back(object_line({at(base + 0x30), "STRING", at(0x14), {}, R"("value":"x")"}));
      // a WeakMap's entry: a table with the map's old finalizer only
      tables.push_back(at(base + 0x40));
      lines.push_back(object_line({at(base + 0x40), "ARRAY", "", {at(0x800)}, R"("length":2)"}));
    }
    lines.push_back(object_line({at(0x800), "DATA", at(0x13), {}, R"("struct":"proc")"}));
    lines.push_back(root_line("vm", {at(0x10), at(0x800)}));
    lines.push_back(root_line("finalizers", tables));
    return join_lines(lines);
  };
  const Run run(dump);
  REQUIRE(run.clusters.leaks.size() == 1);
  CHECK(run.clusters.leaks[0].key == "2 Upload objects kept alive by their own finalizer");
  CHECK(run.clusters.leaks[0].holder == kNoObject);
  CHECK(run.clusters.leaks[0].reach.root == "finalizers");
}

namespace {

// Module CompiledViews gains `classes(which)` subclasses of Base.
std::string classes_dump(int which, const std::function<int(int)>& classes) {
  std::vector<std::string> lines = core_classes();
  lines.push_back(class_line(at(0x30), "Base", {at(0x10)}));
  std::vector<std::string> held;
  for (int k = 0; k < classes(which); ++k) {
    const std::uint64_t base = 0x1000 + 0x100 * k;
    held.push_back(at(base));
    lines.push_back(object_line(
        {at(base),
         "CLASS",
         "",
         {at(0x30), at(base + 0x10)},
         "\"name\":\"CompiledViews::View" + std::to_string(k) + "\", \"superclass\":\"0x30\""}));
    lines.push_back(object_line({at(base + 0x10), "IMEMO", "", {}, R"("imemo_type":"ment")"}));
  }
  lines.push_back(object_line({at(0x40), "MODULE", "", held, R"("name":"CompiledViews")"}));
  lines.push_back(root_line("vm", {at(0x10), at(0x30), at(0x40)}));
  return join_lines(lines);
}

}  // namespace

TEST_CASE("classes a module keeps gaining at run time are a leak", "[leak_shape]") {
  const Run run([](int which) { return classes_dump(which, [](int w) { return 1 + 3 * w; }); });
  REQUIRE(run.clusters.leaks.size() == 1);
  const LeakCluster& row = run.clusters.leaks[0];
  CHECK(row.key == "3 classes defined at run time in CompiledViews");
  // one group for the three classes, named by what they are
  const auto group = std::find_if(row.classes.begin(), row.classes.end(),
                                  [](const auto& c) { return c.name == "subclasses of Base"; });
  REQUIRE(group != row.classes.end());
  CHECK(group->count == 3);
}

TEST_CASE("classes loaded once are code loaded, not a leak", "[leak_shape]") {
  const Run run([](int which) { return classes_dump(which, [](int w) { return w ? 4 : 1; }); });
  CHECK(run.clusters.leaks.empty());
  REQUIRE(run.clusters.noise.size() == 1);
  CHECK(run.clusters.noise[0].noise == NoiseReason::kCodeLoaded);
}

TEST_CASE("anonymous classes are named by what they are", "[leak_shape]") {
  auto dump = join_lines({
      class_line(at(0x16), "Struct"),
      class_line(at(0x30), "Base"),
      object_line({at(0x100), "CLASS", "", {at(0x30)}, R"("superclass":"0x30")"}),
      object_line({at(0x200), "CLASS", "", {at(0x16), at(0x210)}, R"("superclass":"0x16")"}),
      object_line({at(0x210), "ARRAY", "", {at(0x220)}, R"("length":2)"}),
      object_line({at(0x220), "SYMBOL", "", {}, R"("value":"sku")"}),
  });
  TempFile file(dump);
  auto heap = load_heap(file.path());
  REQUIRE(heap);
  const Heap& h = **heap;
  CHECK(class_kind(h, index_of(h, "0x100")) == "anonymous subclass of Base");
  CHECK(class_family(h, index_of(h, "0x100")) == "subclasses of Base");
  CHECK(class_kind(h, index_of(h, "0x200")) == "Struct(:sku, +1)");
  CHECK(class_family(h, index_of(h, "0x200")) == "Struct classes");
}

TEST_CASE("a Proc names the method and file that defined its block", "[leak_shape]") {
  // An iseq marks its literals, then label, base label and path, then its parent.
  auto dump = join_lines({
      class_line(at(0x13), "Proc"),
      class_line(at(0x14), "String"),
      object_line({at(0x100), "DATA", at(0x13), {at(0x200)}, R"("struct":"proc")"}),
      object_line({at(0x200),
                   "IMEMO",
                   "",
                   {at(0x310), at(0x320), at(0x330), at(0x340), at(0x400)},
                   R"("imemo_type":"iseq")"}),
      object_line({at(0x310), "STRING", at(0x14), {}, R"("value":"a literal")"}),
      object_line({at(0x320), "STRING", at(0x14), {}, R"("value":"block in start_query_counter")"}),
      object_line({at(0x330), "STRING", at(0x14), {}, R"("value":"start_query_counter")"}),
      object_line({at(0x340), "STRING", at(0x14), {}, R"("value":"/app/lib/stats.rb")"}),
      object_line({at(0x400), "IMEMO", "", {}, R"("imemo_type":"iseq")"}),
  });
  TempFile file(dump);
  auto heap = load_heap(file.path());
  REQUIRE(heap);
  CHECK(block_origin(**heap, index_of(**heap, "0x100")) ==
        "block in start_query_counter (/app/lib/stats.rb)");
}

TEST_CASE("a group is named by its majority class", "[leak_shape]") {
  // One ArrayInquirer (an Array subclass) and three plain Arrays gained by a Hash.
  auto dump = [](int which) {
    std::vector<std::string> lines = core_classes();
    lines.push_back(class_line(at(0x20), "ArrayInquirer", {at(0x15)}));
    lines.push_back(class_line(at(0x30), "Registry", {at(0x100)}));
    std::vector<std::string> held;
    for (int k = 0; k < 4 * which; ++k) {
      held.push_back(at(0x1000 + 0x10 * k));
      lines.push_back(
          object_line({held.back(), "ARRAY", at(k % 4 == 0 ? 0x20 : 0x15), {}, R"("length":0)"}));
    }
    lines.push_back(object_line(
        {at(0x100), "HASH", at(0x18), held, "\"size\":" + std::to_string(held.size())}));
    lines.push_back(root_line("vm", {at(0x10), at(0x30)}));
    return join_lines(lines);
  };
  const Run run(dump);
  REQUIRE(run.clusters.leaks.size() == 1);
  REQUIRE(run.clusters.leaks[0].classes.size() == 1);
  CHECK(run.clusters.leaks[0].classes[0].count == 4);
  CHECK(run.clusters.leaks[0].classes[0].name == "Array");
}

TEST_CASE("a holder that did not grow but gained a growing Hash is a leak", "[leak_shape]") {
  // Settings.@cache was reassigned to a new Hash after A; the Hash grows B -> C.
  auto dump = [](int which) {
    std::vector<std::string> lines = core_classes();
    lines.push_back(class_line(at(0x20), "Settings"));
    lines.push_back(class_line(at(0x30), "App", {at(0x100)}));
    const std::string cache = which ? at(0x2000) : at(0x3000);
    // its first ivar (@name) stays: the same object in A, B and C
    lines.push_back(object_line({at(0x100), "OBJECT", at(0x20), {at(0x500), cache}}));
    lines.push_back(object_line({at(0x500), "STRING", at(0x14), {}, R"("value":"settings")"}));
    std::vector<std::string> held;
    for (int k = 0; k < 2 * which; ++k) {
      held.push_back(at(0x4000 + 0x10 * k));
      lines.push_back(object_line({held.back(), "STRING", at(0x14), {}, R"("value":"v")"}));
    }
    lines.push_back(
        object_line({cache, "HASH", at(0x18), held, "\"size\":" + std::to_string(held.size())}));
    lines.push_back(root_line("vm", {at(0x10), at(0x30)}));
    return join_lines(lines);
  };
  const Run run(dump);
  REQUIRE(run.clusters.leaks.size() == 1);
  // The new Hash that keeps growing is the holder (issue 41, defect 1), not
  // the object that gained it once: "Hash in Settings (created between A and B)".
  CHECK(run.b().address(run.clusters.leaks[0].holder) == 0x2000);
  CHECK(run.clusters.leaks[0].growth.born);
  CHECK(run.clusters.leaks[0].growth.target == 2u);
  CHECK(run.clusters.leaks[0].growth.later == 4u);
}
