// explain's diagnosis on the shapes of issue 41 and the capture gem's own
// objects (issue 40): each small dump series is the shape, the checks what a
// Ruby engineer must read in the first row.
#include <catch2/catch.hpp>
#include <fstream>

#include "core/diagnosis/leak_diff.h"
#include "core/explain/explain_pipeline.h"
#include "core/images/cached_load.h"
#include "core/reading/dump_manifest.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

LeakClusters explain(const std::string& a, const std::string& b, const std::string& c) {
  LoadOptions light;
  light.mode = LoadMode::kIdentityOnly;
  auto ha = load_text(a, light);
  auto hb = load_text(b);
  auto hc = load_text(c, light);
  const LeakDiff diff = diff_heaps(*ha, *hb, hc.get());
  return cluster_leaks(*ha, *hb, hc.get(), diff);
}

std::string classes() {
  return join_lines({class_line("0x10", "Object", {"0x20"}), class_line("0x11", "Hash"),
                     class_line("0x12", "Array"), class_line("0x13", "String"),
                     class_line("0x14", "Thread")});
}

// n Strings 0x1000.. as a list of addresses and their records.
std::vector<std::string> strings(int from, int n, std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (int k = 0; k < n; ++k) {
    char address[32];
    std::snprintf(address, sizeof address, "0x%x", 0x1000 + 0x10 * (from + k));
    out.push_back(address);
    lines.push_back(object_line({address, "STRING", "0x13", {}, R"("memsize":40)"}));
  }
  return out;
}

}  // namespace

TEST_CASE("a String held only from the machine stack is noise, not a leak", "[leak_diagnosis]") {
  const auto dump = [](int which) {
    std::vector<std::string> lines = {classes(), class_line("0x20", "Flags")};
    std::vector<std::string> stack;
    if (which >= 1) stack = strings(0, 1, lines);  // the C local in B, still there in C
    lines.push_back(root_line("vm", {"0x10"}));
    if (!stack.empty()) lines.push_back(root_line("machine_context", stack));
    return join_lines(lines);
  };
  const LeakClusters out = explain(dump(0), dump(1), dump(2));
  CHECK(out.leaks.empty());
  REQUIRE(out.noise.size() == 1);
  CHECK(out.noise[0].noise == NoiseReason::kMachineStack);
}

TEST_CASE("a Hash created between A and B that keeps growing is the holder", "[leak_diagnosis]") {
  // `Flags.@seen ||= {}` first called after A: the module gains one ivar once,
  // the Hash grows 3 -> 6 entries from B to C.
  const auto dump = [](int which) {
    std::vector<std::string> lines = {classes()};
    std::vector<std::string> ivars;
    if (which >= 1) {
      std::vector<std::string> entries = strings(0, which == 1 ? 3 : 6, lines);
      lines.push_back(object_line(
          {"0x500", "HASH", "0x11", entries, "\"size\":" + std::to_string(entries.size())}));
      ivars.push_back("0x500");
    }
    lines.push_back(class_line("0x20", "Flags", ivars));
    lines.push_back(root_line("vm", {"0x10"}));
    return join_lines(lines);
  };
  const LeakClusters out = explain(dump(0), dump(1), dump(2));
  REQUIRE(out.leaks.size() == 1);
  const LeakCluster& row = out.leaks[0];
  CHECK(row.key == "Hash in Flags (created between A and B)");
  CHECK(row.growth.born);
  CHECK_FALSE(row.growth.baseline);
  CHECK(row.growth.target == 3u);
  CHECK(row.growth.later == 6u);
  CHECK(row.count == 4);  // the Hash and its 3 Strings
}

TEST_CASE("a row whose holders another row's holder keeps through a block is that row",
          "[leak_diagnosis]") {
  // LIST (a constant's Array) -> Proc -> old App -> @timings Array that grows;
  // LIST itself gains a subscriber per request. One leak: the list.
  const auto dump = [](int which) {
    std::vector<std::string> lines = {classes(), class_line("0x15", "Proc"),
                                      class_line("0x16", "App")};
    std::vector<std::string> subscribers = {"0x300"};
    std::vector<std::string> timings = strings(0, 2 * which, lines);
    for (int k = 0; k < which; ++k) {
      char address[32];
      std::snprintf(address, sizeof address, "0x%x", 0x4000 + 0x10 * k);
      subscribers.push_back(address);
      lines.push_back(object_line({address, "DATA", "0x15", {}, R"("memsize":80)"}));
    }
    lines.push_back(object_line({"0x300", "DATA", "0x15", {"0x310"}, R"("memsize":80)"}));
    lines.push_back(object_line({"0x310", "OBJECT", "0x16", {"0x320"}}));
    lines.push_back(object_line(
        {"0x320", "ARRAY", "0x12", timings, "\"length\":" + std::to_string(timings.size())}));
    lines.push_back(object_line({"0x200", "ARRAY", "0x12", subscribers,
                                 "\"length\":" + std::to_string(subscribers.size())}));
    lines.push_back(class_line("0x20", "Hub", {"0x200"}));
    lines.push_back(root_line("vm", {"0x10"}));
    return join_lines(lines);
  };
  const LeakClusters out = explain(dump(0), dump(1), dump(2));
  REQUIRE(out.leaks.size() == 1);
  const LeakCluster& row = out.leaks[0];
  CHECK(row.key == "Array in Hub");
  CHECK(row.count == 3);  // its new subscriber and the 2 timings of the old App
  REQUIRE(row.grows_with.size() == 1);
  CHECK(row.grows_with[0].first == "Array in App");
}

TEST_CASE("what the capture gem's own threads hold is filed apart", "[leak_diagnosis]") {
  // A Thread the manifest lists as the gem's holds an Array that grows.
  const auto dump = [](int which) {
    std::vector<std::string> lines = {classes(), class_line("0x20", "Config")};
    std::vector<std::string> results = strings(0, 2 * which, lines);
    lines.push_back(object_line(
        {"0x600", "ARRAY", "0x12", results, "\"length\":" + std::to_string(results.size())}));
    lines.push_back(object_line({"0x700", "DATA", "0x14", {"0x600"}, R"("memsize":100)"}));
    lines.push_back(root_line("vm", {"0x10", "0x700"}));
    return join_lines(lines);
  };
  LoadOptions light;
  light.mode = LoadMode::kIdentityOnly;
  TempFile a(dump(0)), b(dump(1)), c(dump(2));
  const auto manifest = [](const TempFile& file) {
    std::ofstream(manifest_path_for(file.path()))
        << R"({"format":"heapleak-capture-manifest","process":{"pid":1,"started_at":"x"},)"
        << R"("gc":{"count":1,"compact_count":0},"capture_objects":{"threads":["0x700"]}})";
  };
  const auto heap = [](const TempFile& file, const LoadOptions& options) {
    auto loaded = load_heap(file.path(), options);
    REQUIRE(loaded);
    return *loaded;
  };
  SECTION("without the manifest it is a leak row") {
    auto ha = heap(a, light), hb = heap(b, {}), hc = heap(c, light);
    const LeakClusters out = cluster_leaks(*ha, *hb, hc.get(), diff_heaps(*ha, *hb, hc.get()));
    CHECK(out.leaks.size() == 1);
  }
  SECTION("with it, the gem's own") {
    manifest(b);
    auto ha = heap(a, light), hb = heap(b, {}), hc = heap(c, light);
    const LeakClusters out = cluster_leaks(*ha, *hb, hc.get(), diff_heaps(*ha, *hb, hc.get()));
    CHECK(out.leaks.empty());
    REQUIRE(out.noise.size() == 1);
    CHECK(out.noise[0].noise == NoiseReason::kCaptureOwn);
    std::remove(manifest_path_for(b.path()).c_str());
  }
}

TEST_CASE("allocation sites older than the series' tracing are not believed", "[leak_diagnosis]") {
  const std::string text = join_lines({
      class_line("0x13", "String"),
      object_line({"0x500", "STRING", "0x13", {}, R"("file":"old.rb", "line":3, "generation":4)"}),
      object_line({"0x510", "STRING", "0x13", {}, R"("file":"new.rb", "line":7, "generation":12)"}),
      root_line("vm", {"0x500", "0x510"}),
  });
  TempFile dump(text);
  const auto load_with = [&](const std::string& tracing) {
    std::ofstream(manifest_path_for(dump.path()))
        << R"({"format":"heapleak-capture-manifest","process":{"pid":1,"started_at":"x"},)"
        << R"("gc":{"count":20,"compact_count":0},"allocation_tracing":)" << tracing << "}";
    CachedLoad loaded = load_heap_cached(nullptr, dump.path());
    std::remove(manifest_path_for(dump.path()).c_str());
    REQUIRE(loaded.heap);
    return *loaded.heap;
  };
  SECTION("tracing began at GC 10: the object of generation 4 has a stale site") {
    auto heap = load_with(R"({"on":true,"since_gc_count":10})");
    CHECK(heap->file(index_of(*heap, "0x500")).empty());
    CHECK_FALSE(heap->generation(index_of(*heap, "0x500")));
    CHECK(heap->file(index_of(*heap, "0x510")) == "new.rb");
    CHECK(heap->line(index_of(*heap, "0x510")) == 7);
  }
  SECTION("tracing off: every site is the tracer's stale table") {
    auto heap = load_with(R"({"on":false})");
    CHECK_FALSE(heap->has_allocation_info());
    CHECK(heap->file(index_of(*heap, "0x510")).empty());
  }
  SECTION("an older manifest that does not say: sites are believed") {
    auto heap = load_with(R"({"since":null})");
    CHECK(heap->file(index_of(*heap, "0x500")) == "old.rb");
  }
}

TEST_CASE("ROOT end_proc reads as at_exit blocks", "[leak_diagnosis]") {
  const auto dump = [](int which) {
    std::vector<std::string> lines = {classes(), class_line("0x20", "Jobs")};
    std::vector<std::string> held = strings(0, which, lines);
    lines.push_back(root_line("vm", {"0x10"}));
    if (!held.empty()) lines.push_back(root_line("end_proc", held));
    return join_lines(lines);
  };
  const LeakClusters out = explain(dump(0), dump(1), dump(2));
  REQUIRE(out.leaks.size() + out.noise.size() == 1);
  const LeakCluster& row = out.leaks.empty() ? out.noise[0] : out.leaks[0];
  CHECK(row.key == "held by ROOT end_proc (at_exit blocks)");
}

TEST_CASE("an object that gains instance variables says so", "[leak_diagnosis]") {
  // Registry.instance_variable_set("@handler_#{n}", ...) per request.
  const auto dump = [](int which) {
    std::vector<std::string> lines = {classes(), class_line("0x20", "App", {"0x300"}),
                                      class_line("0x21", "Registry")};
    std::vector<std::string> ivars = strings(0, 3 + 2 * which, lines);
    lines.push_back(object_line({"0x300", "OBJECT", "0x21", ivars}));
    lines.push_back(root_line("vm", {"0x10"}));
    return join_lines(lines);
  };
  const LeakClusters out = explain(dump(0), dump(1), dump(2));
  REQUIRE(out.leaks.size() == 1);
  CHECK(out.leaks[0].growth.field == "instance variables");
  CHECK(out.leaks[0].growth.baseline == 3u);
  CHECK(out.leaks[0].growth.target == 5u);
  CHECK(out.leaks[0].growth.later == 7u);
}
