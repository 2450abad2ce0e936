#include "core/diagnosis/later_holders.h"

#include <catch2/catch.hpp>

#include "core/diagnosis/leak_diff.h"
#include "core/explain/explain_pipeline.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// The machine stack holds, in B only, a request's Hash (new in B, gone by
// C) over a context String that lives on into C. With `registered`, an old
// Array of class Hooks also holds the context through a new Proc, further
// from the roots than the request's Hash.
std::string dump(int which, bool registered) {
  std::vector<std::string> lines = {
      class_line("0x10", "Object", {"0x20"}),
      class_line("0x11", "Hash"),
      class_line("0x12", "Array"),
      class_line("0x13", "String"),
      class_line("0x14", "Proc"),
      class_line("0x20", "Hooks", {"0x100"}),
  };
  std::vector<std::string> hooks;
  std::vector<std::string> machine;
  if (which >= 1) {
    lines.push_back(object_line({"0x500", "STRING", "0x13", {}, R"("value":"ctx", "memsize":40)"}));
    if (registered) {
      hooks.push_back("0x600");
      lines.push_back(object_line({"0x600", "DATA", "0x14", {"0x500"}, R"("memsize":80)"}));
    }
  }
  if (which == 2 && registered) {  // C: one more hook, so the Array grows
    hooks.push_back("0x610");
    lines.push_back(object_line({"0x610", "DATA", "0x14", {}, R"("memsize":80)"}));
  }
  if (which == 1) {  // the request in flight when B was dumped
    machine.push_back("0x700");
    lines.push_back(
        object_line({"0x700", "HASH", "0x11", {"0x500"}, R"("size":1, "memsize":160)"}));
  }
  lines.push_back(
      object_line({"0x100", "ARRAY", "0x12", hooks, "\"length\":" + std::to_string(hooks.size())}));
  lines.push_back(root_line("vm", {"0x10"}));
  if (!machine.empty()) lines.push_back(root_line("machine_context", machine));
  return join_lines(lines);
}

LeakClusters explain(bool registered) {
  LoadOptions light;
  light.mode = LoadMode::kIdentityOnly;
  auto a = load_text(dump(0, registered), light);
  auto b = load_text(dump(1, registered));
  auto c = load_text(dump(2, registered), light);
  const LeakDiff diff = diff_heaps(*a, *b, c.get());
  return cluster_leaks(*a, *b, c.get(), diff);
}

}  // namespace

TEST_CASE("the holder is what keeps the objects alive in C, not a B object gone by C",
          "[later_holders]") {
  const LeakClusters clusters = explain(true);
  REQUIRE(clusters.leaks.size() == 1);
  const LeakCluster& row = clusters.leaks[0];
  CHECK(row.count == 2);  // the Proc and the context it captures, in one row
  REQUIRE(row.holder != kNoObject);
  CHECK(row.key == "Array in Hooks");
}

TEST_CASE("objects held in B only by a holder gone by C are noise", "[later_holders]") {
  const LeakClusters clusters = explain(false);
  CHECK(clusters.leaks.empty());
  REQUIRE(clusters.noise.size() == 1);
  CHECK(clusters.noise[0].noise == NoiseReason::kTransientHolder);
  CHECK(clusters.noise[0].count == 1);
}
