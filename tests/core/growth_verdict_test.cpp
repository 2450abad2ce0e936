#include "core/growth_verdict.h"

#include <catch2/catch.hpp>

#include "core/leak_clusters.h"

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

TEST_CASE("growth not read in A or C is never called bounded", "[growth_verdict]") {
  Growth g = growth(0, 209, 0);
  g.baseline.reset();
  g.later.reset();
  CHECK_FALSE(looks_bounded(g));
}
