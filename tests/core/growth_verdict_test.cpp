#include "core/diagnosis/growth_verdict.h"

#include <catch2/catch.hpp>

#include "core/explain/explain_pipeline.h"
#include "core/graph/dominators.h"
#include "tests/core/test_dump.h"

using namespace heapleak;

namespace {

Growth growth(std::uint64_t a, std::uint64_t b, std::uint64_t c, bool drops = false) {
  Growth g;
  g.field = "size";
  g.baseline = a;
  g.target = b;
  g.later = c;
  g.drops = drops;
  return g;
}

}  // namespace

TEST_CASE("a steady leak is never bounded, however slow or large", "[growth_verdict]") {
  CHECK_FALSE(looks_bounded(growth(160, 200, 240)));
  CHECK_FALSE(looks_bounded(growth(160, 200, 240, true)));  // a leak that also evicts some
  CHECK_FALSE(looks_bounded(growth(10000, 10050, 10100)));
  CHECK_FALSE(looks_bounded(growth(0, 63, 120)));
}

TEST_CASE("a container that stopped growing is bounded", "[growth_verdict]") {
  CHECK(looks_bounded(growth(1, 2, 2)));
  CHECK(looks_bounded(growth(152, 178, 156)));
}

TEST_CASE("churn around a cap is bounded within a tolerance", "[growth_verdict]") {
  CHECK(looks_bounded(growth(217, 209, 218)));        // an LRU at its cap
  CHECK(looks_bounded(growth(147, 141, 152)));        // a MemoryStore pruned to 75%
  CHECK_FALSE(looks_bounded(growth(147, 141, 200)));  // back far above: a leak after a dip
}

TEST_CASE("a ring buffer that reached its cap between B and C is bounded", "[growth_verdict]") {
  CHECK(looks_bounded(growth(45, 95, 100, true)));
  CHECK(looks_bounded(growth(50, 97, 100, true)));
  CHECK(looks_bounded(growth(50, 100, 100)));
  // Slowed down but dropped nothing: an append-only list with less work.
  CHECK_FALSE(looks_bounded(growth(45, 95, 100, false)));
}

TEST_CASE("a thread's stack moving its references is not growth", "[growth_verdict]") {
  Growth idle = growth(167, 169, 173);  // a Puma pool thread, idle in B and in C
  CHECK_FALSE(looks_bounded(idle));     // as any other holder, 4 more is growth
  idle.stack = true;
  CHECK(looks_bounded(idle));
  Growth locals = growth(167, 263, 359);  // 96 thread-locals a request batch: a leak
  locals.stack = true;
  CHECK_FALSE(looks_bounded(locals));
}

TEST_CASE("growth not read in A or C is never called bounded", "[growth_verdict]") {
  Growth g = growth(0, 209, 0);
  g.baseline.reset();
  g.later.reset();
  CHECK_FALSE(looks_bounded(g));
}

namespace {

using heapleak::test::class_line;
using heapleak::test::join_lines;
using heapleak::test::load_text;
using heapleak::test::Obj;
using heapleak::test::object_line;
using heapleak::test::root_line;

// A class's callbacks Hash (0x100, one key) holding a chain (0x200) whose
// Array holds three Callbacks, as B shows it (every object 40 bytes).
std::string callbacks_in_b() {
  const std::string m = "\"memsize\":40";
  std::vector<std::string> lines = {
      class_line("0x10", "Chain"),
      class_line("0x11", "Callback"),
      root_line("vm", {"0x100"}),
      object_line(Obj{"0x100", "HASH", "", {"0x200"}, "\"size\":1," + m}),
      object_line(Obj{"0x200", "OBJECT", "0x10", {"0x210"}, m}),
      object_line(Obj{"0x210", "ARRAY", "", {"0x401", "0x402", "0x403"}, "\"length\":3," + m}),
  };
  for (const char* cb : {"0x401", "0x402", "0x403"})
    lines.push_back(object_line(Obj{cb, "OBJECT", "0x11", {}, m}));
  return join_lines(lines);
}

}  // namespace

TEST_CASE("a holder whose entry holding the leak is rebuilt is never bounded", "[growth_verdict]") {
  auto target = load_text(callbacks_in_b());
  LoadOptions light;
  light.mode = LoadMode::kIdentityOnly;
  const ObjectIndex holder = heapleak::test::index_of(*target, "0x100");
  const std::uint64_t leaked = target->dominators().retained(holder) / 2;
  // C: the Hash's one entry is a grown copy of the chain, B's chain gone.
  auto rebuilt =
      load_text(join_lines({class_line("0x10", "Chain"), class_line("0x11", "Callback"),
                            root_line("vm", {"0x100"}),
                            object_line(Obj{"0x100", "HASH", "", {"0x300"}, "\"size\":1"}),
                            object_line(Obj{"0x300", "OBJECT", "0x10", {"0x3011"}})}),
                light);
  const Counterparts in_rebuilt = counterparts_of(*target, *rebuilt);
  CHECK(rebuilt_entry(*target, holder, &in_rebuilt, leaked));
  Growth g = growth(1, 1, 1);
  CHECK(looks_bounded(g));
  g.rebuilt = true;
  CHECK_FALSE(looks_bounded(g));
  // C: the same chain still there (the Hash did not change): its size is the answer.
  auto same = load_text(callbacks_in_b(), light);
  const Counterparts in_same = counterparts_of(*target, *same);
  CHECK_FALSE(rebuilt_entry(*target, holder, &in_same, leaked));
  // The first entry holds little of the leak (an LRU's first key evicted): no.
  CHECK_FALSE(
      rebuilt_entry(*target, holder, &in_rebuilt, 4 * target->dominators().retained(holder)));
  CHECK_FALSE(rebuilt_entry(*target, holder, nullptr, leaked));
}
