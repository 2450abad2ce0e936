// The address indices a load resolves its references with: both layouts
// must answer what a binary search over the sorted addresses answers, for
// present addresses and for absent ones (a gap, another window, unaligned).
#include "core/heap/address_index.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <vector>

using namespace heapleak;

namespace {

ObjectIndex expected(const Column<Address>& sorted, Address address) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), address);
  return it != sorted.end() && *it == address ? static_cast<ObjectIndex>(it - sorted.begin())
                                              : kNoObject;
}

// Ruby-like: objects in 64 KiB pages, in slots of 40 bytes (and 80 in some
// pages), with free slots left out; pages far apart.
Column<Address> ruby_like(std::size_t pages, std::mt19937_64& random) {
  std::vector<Address> addresses;
  for (std::size_t p = 0; p < pages; ++p) {
    const Address page =
        Address{0x7f3a10000000} + (p * 7 % pages) * 0x10000 + (p % 3) * 0x100000000;
    const Address slot = p % 4 == 0 ? 80 : 40;
    for (Address at = page + 40; at + slot <= page + 0x10000; at += slot)
      if (random() % 4 != 0) addresses.push_back(at);
  }
  std::sort(addresses.begin(), addresses.end());
  return Column<Address>(addresses.begin(), addresses.end());
}

// What to look up: every address, its neighbours, and some far away.
std::vector<Address> probes(const Column<Address>& sorted) {
  std::vector<Address> out(sorted.begin(), sorted.end());
  for (Address address : sorted) {
    out.push_back(address + 8);
    out.push_back(address + 3);
    out.push_back(address - 40);
    out.push_back((address | 0xffff) - 7);      // the window's last granule
    out.push_back(address & ~Address{0xffff});  // its first
  }
  for (Address far : {Address{0}, Address{8}, ~Address{7}, ~Address{0}, Address{0x10000}})
    out.push_back(far);
  return out;
}

// `room`: as much as a load lends (two slots per object), or more.
void check_both_indices(const Column<Address>& sorted, bool windows_expected,
                        std::size_t room_slots = 0) {
  std::vector<std::uint32_t> room(std::max(room_slots, 2 * sorted.size() + 2));
  const auto fitting = WindowIndex::fitting_windows(sorted, room);
  REQUIRE(fitting.has_value() == windows_expected);
  const auto lookups = probes(sorted);
  if (windows_expected) {
    const WindowIndex windows(sorted, room, *fitting);
    for (Address address : lookups) {
      INFO("address " << std::hex << address);
      REQUIRE(windows.find(address) == expected(sorted, address));
    }
  }
  for (bool two : {false, true}) {
    const HashIndex hash(sorted, room, two);
    for (Address address : lookups) {
      INFO("address " << std::hex << address);
      REQUIRE(hash.find(address) == expected(sorted, address));
    }
  }
  for (bool two : {false, true}) {
    Column<Address> refs(lookups.begin(), lookups.end());
    resolve_addresses(sorted, refs, room, two);
    for (std::size_t r = 0; r < refs.size(); ++r) {
      INFO("address " << std::hex << lookups[r]);
      REQUIRE(refs[r] == expected(sorted, lookups[r]));
    }
  }
}

}  // namespace

TEST_CASE("a heap in Ruby's pages is indexed by windows, and both indices agree",
          "[address_index]") {
  std::mt19937_64 random(7);
  const Column<Address> sorted = ruby_like(80, random);  // ~85,000 objects
  REQUIRE(sorted.size() > 65536);                        // resolves on two threads
  check_both_indices(sorted, true);
}

TEST_CASE("a window's first and last granules, and bits 0 and 63 of a word", "[address_index]") {
  const std::vector<Address> addresses = {0x10000, 0x10008, 0x101f8, 0x10200, 0x1fff8, 0x30000};
  // A handful of objects: more room than a load would lend them.
  check_both_indices(Column<Address>(addresses.begin(), addresses.end()), true, 4096);
}

TEST_CASE("unaligned or sparse addresses fall back to the hash table", "[address_index]") {
  std::mt19937_64 random(11);
  SECTION("one address not 8-byte aligned") {
    const Column<Address> pages = ruby_like(4, random);
    std::vector<Address> addresses(pages.begin(), pages.end());
    addresses.push_back(0x7fff00000004);
    std::sort(addresses.begin(), addresses.end());
    check_both_indices(Column<Address>(addresses.begin(), addresses.end()), false);
  }
  SECTION("an object per window: the windows would not fit the room") {
    std::vector<Address> addresses;
    for (Address k = 1; k < 5000; ++k) addresses.push_back(k * 0x40000 + (k % 7) * 8);
    check_both_indices(Column<Address>(addresses.begin(), addresses.end()), false);
  }
  SECTION("no objects") { check_both_indices(Column<Address>(), false); }
}
