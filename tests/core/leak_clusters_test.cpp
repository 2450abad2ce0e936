#include <catch2/catch.hpp>

#include "core/explain/explain_pipeline.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// A small application heap: class Cache (constant under Object) holds a
// Hash of users that grows 1 -> 3 -> 5 (a leak); class Pool holds an Array
// that grew once, 1 -> 2 -> 2 (bounded); the finalizers root holds hidden
// arrays (WeakMap/WeakRef). `base` shifts every address: a second run.
struct App {
  std::uint64_t base = 0;
  std::string at(std::uint64_t offset) const {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(base + offset));
    return text;
  }

  // dump 0: A, 1: B, 2: C
  std::string dump(int which) const {
    std::vector<std::string> lines = {
        class_line(at(0x10), "Object", {at(0x20), at(0x30)}),
        class_line(at(0x11), "Hash"),
        class_line(at(0x12), "Array"),
        class_line(at(0x13), "User"),
        class_line(at(0x14), "String"),
        class_line(at(0x20), "Cache", {at(0x100)}),
        class_line(at(0x30), "Pool", {at(0x200)}),
    };
    const int users = 1 + 2 * which;  // 1, 3, 5
    std::vector<std::string> held;
    for (int k = 0; k < users; ++k) {
      const std::string user = at(0x1000 + 0x10 * k), name = at(0x2000 + 0x10 * k);
      held.push_back(user);
      lines.push_back(object_line({user, "OBJECT", at(0x13), {name}, R"("memsize":40)"}));
      lines.push_back(object_line({name, "STRING", at(0x14), {}, R"("value":"u", "memsize":40)"}));
    }
    lines.push_back(object_line({at(0x100), "HASH", at(0x11), held,
                                 "\"size\":" + std::to_string(users) + R"(, "memsize":200)"}));
    std::vector<std::string> pool = {at(0x3000)};
    if (which >= 1) pool.push_back(at(0x3010));
    for (const auto& conn : pool)
      lines.push_back(object_line({conn, "OBJECT", at(0x13), {}, R"("memsize":40)"}));
    lines.push_back(object_line(
        {at(0x200), "ARRAY", at(0x12), pool, "\"length\":" + std::to_string(pool.size())}));
    std::vector<std::string> finalizers;
    for (int k = 0; k < 2 * which; ++k) {
      finalizers.push_back(at(0x4000 + 0x10 * k));
      lines.push_back(
          object_line({finalizers.back(), "ARRAY", "", {}, R"("length":1, "memsize":40)"}));
    }
    lines.push_back(root_line("vm", {at(0x10)}));
    if (!finalizers.empty()) lines.push_back(root_line("finalizers", finalizers));
    return join_lines(lines);
  }
};

LeakClusters explain(const App& app, bool identity_only_a_c = true) {
  LoadOptions light;
  light.mode = identity_only_a_c ? LoadMode::kIdentityOnly : LoadMode::kFull;
  auto a = load_text(app.dump(0), light);
  auto b = load_text(app.dump(1));
  auto c = load_text(app.dump(2), light);
  const LeakDiff diff = diff_heaps(*a, *b, c.get());
  return cluster_leaks(*a, *b, c.get(), diff);
}

}  // namespace

TEST_CASE("leaks cluster by the pre-existing object that gained them", "[leak_clusters]") {
  const App app;
  auto b = load_text(app.dump(1));
  const LeakClusters clusters = explain(app);
  REQUIRE(clusters.leaks.size() == 1);
  const LeakCluster& leak = clusters.leaks[0];
  CHECK(b->address(leak.holder) == 0x100);
  CHECK(leak.key == "Hash in Cache");
  CHECK(leak.count == 4);  // users 2 and 3, each with its name
  CHECK(leak.memsize == 160);
  CHECK(leak.reach.kind == "class");
  CHECK(leak.reach.name == "Cache");
  CHECK(leak.reach.root == "vm");
  CHECK(leak.path_names == std::vector<std::string>{"ROOT vm", "Object", "Cache", "Hash"});
  CHECK(leak.growth.field == "size");
  CHECK(leak.growth.baseline == 1u);
  CHECK(leak.growth.target == 3u);
  CHECK(leak.growth.later == 5u);
  REQUIRE(leak.classes.size() == 2);
  CHECK(leak.classes[0].count == 2);
  CHECK(leak.retained == 160);  // each user dominates its name: counted once
  CHECK(leak.signature.size() == 16);
}

TEST_CASE("noise is apart, with a reason, never among the leaks", "[leak_clusters]") {
  const LeakClusters clusters = explain(App{});
  std::vector<std::string> reasons;
  for (const auto& row : clusters.noise) reasons.emplace_back(noise_reason_name(row.noise));
  std::sort(reasons.begin(), reasons.end());
  CHECK(reasons == std::vector<std::string>{"bounded", "finalizerTable"});
  for (const auto& row : clusters.noise) {
    if (row.noise == NoiseReason::kBounded) {
      CHECK(row.key == "Array in Pool");
      CHECK(row.growth.target == 2u);
      CHECK(row.growth.later == 2u);
    } else {
      CHECK(row.holder == kNoObject);
      CHECK(row.count == 2);
      CHECK(row.reach.root == "finalizers");
    }
  }
}

TEST_CASE("the signature is stable across runs and tells leaks apart", "[leak_clusters]") {
  const LeakClusters first = explain(App{0});
  const LeakClusters second = explain(App{0x7f0000000000});
  REQUIRE(first.leaks.size() == 1);
  REQUIRE(second.leaks.size() == 1);
  CHECK(first.leaks[0].signature == second.leaks[0].signature);
  CHECK(first.noise[0].signature != first.leaks[0].signature);
}

TEST_CASE("growth is read from full heaps as well as identity-only ones", "[leak_clusters]") {
  const LeakClusters clusters = explain(App{}, false);
  REQUIRE(clusters.leaks.size() == 1);
  CHECK(clusters.leaks[0].growth.baseline == 1u);
  CHECK(clusters.leaks[0].growth.later == 5u);
}

TEST_CASE("a VM internal holder gives way to the Ruby object above it", "[leak_clusters]") {
  // Proc -> IMEMO:env -> new strings: the Proc is the holder, the env a hop.
  auto dump = [](int n) {
    std::vector<std::string> lines = {class_line("0x10", "Object", {"0x20"}),
                                      class_line("0x11", "Proc"), class_line("0x14", "String"),
                                      class_line("0x20", "Handlers", {"0x100"})};
    std::vector<std::string> held;
    for (int k = 0; k < n; ++k) {
      held.push_back("0x" + std::to_string(2000 + k));
      lines.push_back(object_line({held.back(), "STRING", "0x14", {}, R"("memsize":40)"}));
    }
    lines.push_back(object_line({"0x100", "DATA", "0x11", {"0x200"}, R"("struct":"proc")"}));
    lines.push_back(object_line({"0x200", "IMEMO", "", held, R"("imemo_type":"env")"}));
    lines.push_back(root_line("vm", {"0x10"}));
    return join_lines(lines);
  };
  auto a = load_text(dump(1)), b = load_text(dump(3)), c = load_text(dump(5));
  const LeakClusters clusters = cluster_leaks(*a, *b, c.get(), diff_heaps(*a, *b, c.get()));
  REQUIRE(clusters.leaks.size() == 1);
  CHECK(b->address(clusters.leaks[0].holder) == 0x100);
  REQUIRE(clusters.leaks[0].hops.size() == 1);
  CHECK(b->address(clusters.leaks[0].hops[0]) == 0x200);
  CHECK(clusters.leaks[0].key == "Proc in Handlers");
  CHECK(clusters.leaks[0].growth.field == "references");
}
