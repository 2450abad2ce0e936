#include "core/base/address.h"

#include <catch2/catch.hpp>

using namespace heapleak;

TEST_CASE("addresses parse strictly and round-trip", "[address]") {
  CHECK(parse_address("0x7f1a2b") == Address{0x7f1a2b});
  CHECK(parse_address("0X7F1A2B") == Address{0x7f1a2b});
  CHECK(parse_address("0xffffffffffffffff") == ~Address{0});
  CHECK_FALSE(parse_address("7f1a2b"));
  CHECK_FALSE(parse_address("0x"));
  CHECK_FALSE(parse_address("0xg1"));
  CHECK_FALSE(parse_address("0x1 "));
  CHECK_FALSE(parse_address("0x10000000000000000"));  // 17 digits
  CHECK_FALSE(parse_address(""));
  for (Address a : {Address{0}, Address{1}, Address{0x7f9f030a37d8}, ~Address{0}}) {
    CHECK(parse_address(format_address(a)) == a);
  }
  CHECK(format_address(0x7f9f030a37d8) == "0x7f9f030a37d8");
  CHECK(format_address(0) == "0x0");
}
