#include "core/diagnosis/leak_folding.h"

#include <catch2/catch.hpp>
#include <cstdio>

#include "core/diagnosis/leak_diff.h"
#include "core/explain/explain_pipeline.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// Hub (a class) holds `@subs`, an Array that gains a Subscription per event
// (new in B and C). Each of `services` old Services (alive in A, reached in
// B only through its new Subscriptions when `through_subs`, else from the
// class Registry) has an old `@timings` Array that gains a Timing per event.
std::string dump(int which, int services, bool through_subs) {
  std::vector<std::string> lines = {
      class_line("0x10", "Object", {"0x20", "0x30"}),
      class_line("0x11", "Array"),
      class_line("0x12", "Subscription"),
      class_line("0x13", "Service"),
      class_line("0x14", "Timing"),
  };
  std::vector<std::string> registry;
  std::vector<std::string> subs;
  for (int s = 0; s < services; ++s) {
    const std::uint64_t base = 0x10000 + 0x1000 * static_cast<std::uint64_t>(s);
    const std::string service = hex(base), timings = hex(base + 0x10);
    registry.push_back(service);
    std::vector<std::string> held;
    for (int k = 0; k < 2 * which; ++k) {
      held.push_back(hex(base + 0x100 + 0x10 * static_cast<std::uint64_t>(k)));
      lines.push_back(object_line({held.back(), "OBJECT", "0x14", {}, R"("memsize":40)"}));
    }
    lines.push_back(object_line({service, "OBJECT", "0x13", {timings}, R"("memsize":40)"}));
    lines.push_back(
        object_line({timings, "ARRAY", "0x11", held,
                     "\"length\":" + std::to_string(held.size()) + R"(, "memsize":40)"}));
    if (which > 0) {  // the event's subscription for this service, new in B
      subs.push_back(hex(0x90000 + 0x10 * static_cast<std::uint64_t>(s)));
      lines.push_back(object_line({subs.back(), "OBJECT", "0x12", {service}, R"("memsize":40)"}));
    }
  }
  lines.push_back(class_line("0x20", "Hub", {"0x200"}));
  lines.push_back(class_line("0x30", "Registry", {"0x300"}));
  lines.push_back(object_line(
      {"0x200", "ARRAY", "0x11", subs, "\"length\":" + std::to_string(subs.size() + which)}));
  lines.push_back(
      object_line({"0x300", "ARRAY", "0x11", through_subs ? std::vector<std::string>{} : registry,
                   R"("length":1)"}));
  lines.push_back(root_line("vm", {"0x10"}));
  return join_lines(lines);
}

LeakClusters explain(int services, bool through_subs) {
  LoadOptions light;
  light.mode = LoadMode::kIdentityOnly;
  auto a = load_text(dump(0, services, through_subs), light);
  auto b = load_text(dump(1, services, through_subs));
  auto c = load_text(dump(2, services, through_subs), light);
  const LeakDiff diff = diff_heaps(*a, *b, c.get());
  return cluster_leaks(*a, *b, c.get(), diff);
}

}  // namespace

TEST_CASE("alike holders of one leak are one row, with their count and totals", "[leak_folding]") {
  const LeakClusters clusters = explain(5, false);
  // The subscription list, and the five @timings folded into one row.
  REQUIRE(clusters.leaks.size() == 2);
  const LeakCluster* timings = nullptr;
  for (const auto& row : clusters.leaks)
    if (row.instances == 5) timings = &row;
  REQUIRE(timings != nullptr);
  CHECK(timings->count == 10);  // two Timings under each of five Arrays
  CHECK(timings->memsize == 400);
  REQUIRE(timings->classes.size() == 1);
  CHECK(timings->classes[0].name == "Timing");
  CHECK(timings->classes[0].count == 10);
  CHECK(timings->key.starts_with("5 x "));
  CHECK(std::is_sorted(timings->objects.begin(), timings->objects.end()));
}

TEST_CASE("a row reached only through another row's leaked objects belongs to it",
          "[leak_folding]") {
  const LeakClusters clusters = explain(5, true);
  REQUIRE(clusters.leaks.size() == 1);
  const LeakCluster& row = clusters.leaks[0];
  CHECK(row.count == 15);  // 5 Subscriptions and the 10 Timings under their services
  CHECK(row.instances == 1);
  REQUIRE(row.classes.size() == 2);
  CHECK(row.classes[0].name == "Timing");
}
