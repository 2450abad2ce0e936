#include "core/diagnosis/grown_objects.h"

#include <catch2/catch.hpp>

#include "core/diagnosis/leak_diff.h"
#include "core/explain/explain_pipeline.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// Class Log holds a String buffer appended to (its value changes, so the
// untraced identity does not match it) and an Array of Integers (no
// references); Pool holds an Array at its cap; Tiny a String that grows by
// little. `which`: 0 A, 1 B, 2 C.
std::string dump(int which) {
  const auto n = static_cast<std::uint64_t>(which);
  std::vector<std::string> lines = {
      class_line("0x10", "Object", {"0x20", "0x30", "0x40"}),
      class_line("0x11", "String"),
      class_line("0x12", "Array"),
      class_line("0x20", "Log", {"0x100", "0x110"}),
      class_line("0x30", "Pool", {"0x200"}),
      class_line("0x40", "Tiny", {"0x300"}),
      object_line({"0x100",
                   "STRING",
                   "0x11",
                   {},
                   "\"bytesize\":" + std::to_string(20000 + 30000 * n) + R"(, "value":"v)" +
                       std::to_string(n) + R"(", "memsize":)" + std::to_string(20040 + 30000 * n)}),
      object_line({"0x110", "ARRAY", "0x12", {}, "\"length\":" + std::to_string(40 + 40 * n)}),
      object_line({"0x200", "ARRAY", "0x12", {}, "\"length\":" + std::to_string(n ? 100 : 60)}),
      object_line({"0x300",
                   "STRING",
                   "0x11",
                   {},
                   "\"bytesize\":" + std::to_string(20000 + 100 * n) + R"(, "memsize":20040)"}),
      root_line("vm", {"0x10"}),
  };
  return join_lines(lines);
}

}  // namespace

TEST_CASE("old objects that grow in place are found, and only they", "[grown_objects]") {
  LoadOptions light;
  light.mode = LoadMode::kIdentityOnly;
  auto a = load_text(dump(0), light);
  auto b = load_text(dump(1));
  auto c = load_text(dump(2), light);
  const LeakDiff diff = diff_heaps(*a, *b, c.get());
  CHECK(diff.leaked.empty());
  REQUIRE(diff.grown.size() == 2);
  // The String gained most bytes: first.
  CHECK(b->address(diff.grown[0].object) == 0x100);
  CHECK(diff.grown[0].field == "bytesize");
  CHECK(diff.grown[0].baseline == 20000);
  CHECK(diff.grown[0].later == 80000);
  CHECK(b->address(diff.grown[1].object) == 0x110);
  CHECK(diff.grown[1].field == "length");

  // explain: a leak row each, the holder the grown object, its path named.
  const LeakClusters clusters = cluster_leaks(*a, *b, c.get(), diff);
  REQUIRE(clusters.leaks.size() == 2);
  CHECK(b->address(clusters.leaks[0].holder) == 0x100);
  CHECK(clusters.leaks[0].grown_in_place);
  CHECK(clusters.leaks[0].count == 0);
  CHECK(clusters.leaks[0].growth.field == "bytesize");
  CHECK(clusters.leaks[0].key == "String in Log");
  CHECK(clusters.leaks[0].retained == 30000);
}

TEST_CASE("no grown objects without a later dump", "[grown_objects]") {
  auto a = load_text(dump(0));
  auto b = load_text(dump(1));
  CHECK(diff_heaps(*a, *b, nullptr).grown.empty());
}
