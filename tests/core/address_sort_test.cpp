// sort_by_address: the order a stable sort by address gives, first record
// of each address kept, on one thread or two, around a hole.
#include "core/heap/address_sort.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>
#include <vector>

using namespace heapleak;

namespace {

struct Expected {
  Column<ObjectIndex> order;
  std::uint64_t duplicates = 0;
};

// What it must answer: positions by (address, position), outside the hole,
// each address's first only.
Expected reference(const Column<Address>& addresses, ObjectIndex hole_begin, ObjectIndex hole_end) {
  std::vector<ObjectIndex> positions;
  for (ObjectIndex i = 0; i < addresses.size(); ++i)
    if (i < hole_begin || i >= hole_end) positions.push_back(i);
  std::stable_sort(positions.begin(), positions.end(),
                   [&](ObjectIndex a, ObjectIndex b) { return addresses[a] < addresses[b]; });
  Expected out;
  for (ObjectIndex i : positions) {
    if (!out.order.empty() && addresses[out.order.back()] == addresses[i]) {
      ++out.duplicates;
      continue;
    }
    out.order.push_back(i);
  }
  return out;
}

// Heap pages of ascending addresses in shuffled page order, some pages
// overlapping others, some addresses written twice.
Column<Address> paged(std::size_t pages, std::size_t per_page, std::mt19937_64& random) {
  std::vector<std::size_t> page_order(pages);
  std::iota(page_order.begin(), page_order.end(), 0);
  std::shuffle(page_order.begin(), page_order.end(), random);
  Column<Address> addresses;
  for (std::size_t page : page_order) {
    const Address base = 0x7f0000000000 + page * 0x10000 + (random() % 8 == 0 ? 0x8000 : 0);
    for (std::size_t k = 0; k < per_page; ++k) {
      addresses.push_back(base + 40 * k);
      if (random() % 50 == 0) addresses.push_back(base + 40 * k);  // written twice
    }
  }
  return addresses;
}

void check(const Column<Address>& addresses, ObjectIndex hole_begin, ObjectIndex hole_end) {
  const Expected expected = reference(addresses, hole_begin, hole_end);
  for (bool two : {false, true}) {
    INFO("two threads: " << two);
    Column<ObjectIndex> order;
    CHECK(sort_by_address(addresses, hole_begin, hole_end, two, order) == expected.duplicates);
    REQUIRE(order.size() == expected.order.size());
    CHECK(order == expected.order);
  }
}

}  // namespace

TEST_CASE("pages merge into address order, first record of an address kept", "[address_sort]") {
  std::mt19937_64 random(3);
  const Column<Address> addresses = paged(120, 1000, random);  // past the two-thread threshold
  REQUIRE(addresses.size() > 65536);
  check(addresses, 0, 0);
}

TEST_CASE("the hole's positions are left out, and no run crosses it", "[address_sort]") {
  std::mt19937_64 random(5);
  Column<Address> addresses = paged(100, 900, random);
  // Ascending values across the hole's edges: a run must still stop there.
  const ObjectIndex hole_begin = 40000, hole_end = 44096;
  for (ObjectIndex i = hole_begin - 3; i < hole_end + 3; ++i) addresses[i] = 0x100000 + 8 * i;
  check(addresses, hole_begin, hole_end);
}

TEST_CASE("degenerate orders: one address, all equal, descending, empty", "[address_sort]") {
  check(Column<Address>(1, 0x40), 0, 0);
  check(Column<Address>(70000, 0x40), 0, 0);  // every one a duplicate but the first
  Column<Address> descending;
  for (Address a = 80000; a > 0; --a) descending.push_back(a * 8);
  check(descending, 0, 0);
  check(Column<Address>(), 0, 0);
}
