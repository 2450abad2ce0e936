// OrderRuns: an order copied by stretches of consecutive sources is the
// order copied one object at a time, from any position on; a fragmented
// order is not kept as runs.
#include "core/heap/order_runs.h"

#include <catch2/catch.hpp>
#include <numeric>
#include <random>
#include <vector>

using namespace heapleak;

namespace {

std::vector<std::uint64_t> gathered_one_by_one(const std::vector<std::uint64_t>& in,
                                               const Column<ObjectIndex>& order) {
  std::vector<std::uint64_t> out(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) out[k] = in[order[k]];
  return out;
}

}  // namespace

TEST_CASE("an order of descending pages gathers by stretch, from any range", "[order_runs]") {
  constexpr std::size_t kObjects = 100000, kPage = 409, kHole = 100;
  // Pages in descending order, a hole left out of one (a split load's padding).
  Column<ObjectIndex> order;
  for (std::size_t page = kObjects / kPage + 1; page-- > 0;)
    for (std::size_t k = page * kPage; k < std::min(kObjects, (page + 1) * kPage); ++k)
      if (k < 50000 || k >= 50000 + kHole) order.push_back(static_cast<ObjectIndex>(k));
  std::vector<std::uint64_t> in(kObjects);
  std::iota(in.begin(), in.end(), 1000);
  const OrderRuns runs(order);
  REQUIRE(runs.by_stretch());
  CHECK(runs.stretches() == kObjects / kPage + 2);  // 245 pages, the holed one in two
  const auto expected = gathered_one_by_one(in, order);
  for (auto [begin, end] :
       std::vector<std::pair<std::size_t, std::size_t>>{{0, order.size()},
                                                        {0, order.size() / 2},
                                                        {order.size() / 2, order.size()},
                                                        {408, 409},
                                                        {409, 818},
                                                        {12345, 12346},
                                                        {order.size() - 1, order.size()}}) {
    std::vector<std::uint64_t> out(order.size(), 0);
    runs.gather(out.data(), in.data(), order.data(), begin, end);
    for (std::size_t k = 0; k < order.size(); ++k)
      REQUIRE(out[k] == (k >= begin && k < end ? expected[k] : 0));
  }
}

TEST_CASE("a scrambled order is gathered one object at a time", "[order_runs]") {
  Column<ObjectIndex> order;
  for (ObjectIndex k = 0; k < 100000; ++k) order.push_back(k);
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  const OrderRuns runs(order);
  CHECK_FALSE(runs.by_stretch());
  std::vector<std::uint64_t> in(order.size());
  std::iota(in.begin(), in.end(), 5);
  std::vector<std::uint64_t> out(order.size());
  runs.gather(out.data(), in.data(), order.data(), 0, order.size());
  CHECK(out == gathered_one_by_one(in, order));
}

TEST_CASE("an empty order has no runs", "[order_runs]") {
  const OrderRuns runs{Column<ObjectIndex>()};
  CHECK(runs.stretches() == 0);
}
