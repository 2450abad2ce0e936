#include "results/leak_gate.h"

#include <catch2/catch.hpp>

#include "tests/results/gate_rows.h"

using namespace heapleak;
using namespace heapleak::results;
using namespace heapleak::test;

namespace {

const char* kCache = "1111111111111111";
const char* kStore = "2222222222222222";
const char* kGone = "3333333333333333";

LeakClusters two_leaks() {
  LeakClusters clusters;
  clusters.leaks.push_back(leak_row("Hash in Cache", kCache, 3000, {{"User", 30, 1200, {}}}));
  clusters.leaks.push_back(leak_row("Array in Store", kStore, 1000, {{"String", 20, 800, {}}}));
  clusters.noise.push_back(noise_row("IMEMO:ment", "4444444444444444", NoiseReason::kVmInternal));
  return clusters;
}

LeakBaseline accepting(std::vector<BaselineEntry> entries) {
  LeakBaseline baseline;
  baseline.leaks = std::move(entries);
  std::sort(baseline.leaks.begin(), baseline.leaks.end(),
            [](const auto& x, const auto& y) { return x.signature < y.signature; });
  return baseline;
}

}  // namespace

TEST_CASE("gate: with no budget and no baseline, any leak row fails; noise never counts") {
  const LeakClusters clusters = two_leaks();
  const GateVerdict verdict = judge_leaks(clusters, nullptr, {});
  CHECK_FALSE(verdict.passed);
  CHECK(verdict.new_rows == 2);
  CHECK(verdict.new_objects == 50);
  CHECK(verdict.new_retained == 4000);
  REQUIRE(verdict.reasons.size() == 1);
  CHECK_THAT(verdict.reasons[0], Catch::Contains("2 new leaks (50 objects, 3.9 KiB retained)") &&
                                     Catch::Contains("with no budget, any new leak fails"));
  REQUIRE(verdict.rows.size() == 2);
  CHECK(verdict.rows[0].row == &clusters.leaks[0]);
  CHECK((verdict.rows[0].failed && verdict.rows[1].failed));

  LeakClusters only_noise;
  only_noise.noise = clusters.noise;
  CHECK(judge_leaks(only_noise, nullptr, {}).passed);
}

TEST_CASE("gate: known leaks pass, a new one fails alone, entries not seen are fixed") {
  const LeakClusters clusters = two_leaks();
  const LeakBaseline baseline =
      accepting({{kCache, "Hash in Cache", 30, 3000}, {kGone, "Array in Gone", 5, 100}});
  const GateVerdict verdict = judge_leaks(clusters, &baseline, {});
  CHECK_FALSE(verdict.passed);
  CHECK(verdict.known_rows == 1);
  CHECK(verdict.new_rows == 1);
  CHECK(verdict.new_retained == 1000);
  CHECK_FALSE(verdict.rows[0].is_new());
  CHECK_FALSE(verdict.rows[0].failed);
  CHECK(verdict.rows[1].is_new());
  CHECK(verdict.rows[1].failed);
  REQUIRE(verdict.fixed.size() == 1);
  CHECK(verdict.fixed[0].signature == kGone);

  const LeakBaseline both = accepting({{kCache, "", 30, 3000}, {kStore, "", 20, 1000}});
  const GateVerdict known = judge_leaks(clusters, &both, {});
  CHECK(known.passed);
  CHECK(known.reasons.empty());
  CHECK(known.fixed.empty());
}

TEST_CASE("gate: budgets apply to the new leaks only") {
  const LeakClusters clusters = two_leaks();
  const LeakBaseline baseline = accepting({{kCache, "", 30, 3000}});
  GateBudget budget;
  budget.max_leaked_bytes = 1000;  // the new row retains exactly 1000: within
  CHECK(judge_leaks(clusters, &baseline, budget).passed);
  budget.max_leaked_bytes = 999;
  GateVerdict over = judge_leaks(clusters, &baseline, budget);
  CHECK_FALSE(over.passed);
  CHECK(over.over_bytes);
  CHECK_FALSE(over.over_objects);
  CHECK_THAT(over.reasons.at(0), Catch::Contains("over --max-leaked-bytes 999 B"));
  CHECK(over.rows[1].failed);
  CHECK_FALSE(over.rows[0].failed);

  GateBudget objects;
  objects.max_leaked_objects = 19;
  over = judge_leaks(clusters, &baseline, objects);
  CHECK_FALSE(over.passed);
  CHECK(over.over_objects);
  CHECK_THAT(over.reasons.at(0), Catch::Contains("over --max-leaked-objects 19"));
  objects.max_leaked_objects = 20;
  CHECK(judge_leaks(clusters, &baseline, objects).passed);
  // Without a baseline both rows count: 4000 bytes.
  budget.max_leaked_bytes = 3999;
  CHECK_FALSE(judge_leaks(clusters, nullptr, budget).passed);
  budget.max_leaked_bytes = 4000;
  CHECK(judge_leaks(clusters, nullptr, budget).passed);
}

TEST_CASE("gate: a known leak that grew is reported, and fails only with --fail-on-growth") {
  LeakClusters clusters = two_leaks();
  // Cache retained 3000 now against 1000 then: x3. A second row with the
  // same signature adds to it (the baseline merges them the same way).
  clusters.leaks.push_back(leak_row("Hash in Cache", kCache, 600, {{"User", 6, 240, {}}}));
  const LeakBaseline baseline = accepting({{kCache, "", 30, 1000}, {kStore, "", 20, 1000}});
  GateVerdict verdict = judge_leaks(clusters, &baseline, {});
  CHECK(verdict.passed);
  REQUIRE(verdict.rows[0].growth);
  CHECK(*verdict.rows[0].growth == Approx(3.6));
  CHECK(verdict.rows[0].grew);
  CHECK(verdict.rows[2].grew);
  CHECK_FALSE(verdict.rows[1].grew);  // x1.0
  CHECK(verdict.grown_rows == 2);

  GateBudget budget;
  budget.fail_on_growth = true;
  budget.growth_factor = 2.0;
  verdict = judge_leaks(clusters, &baseline, budget);
  CHECK_FALSE(verdict.passed);
  CHECK(verdict.rows[0].failed);
  CHECK_FALSE(verdict.rows[1].failed);
  CHECK_THAT(verdict.reasons.at(0), Catch::Contains("2 known leaks grew more than 2x") &&
                                        Catch::Contains("--fail-on-growth"));
  budget.growth_factor = 4.0;
  CHECK(judge_leaks(clusters, &baseline, budget).passed);
}
