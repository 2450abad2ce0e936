// Object addresses as Ruby prints them ("0x" + lower-case hex, no padding).
// Parsing is strict (a bad address is reported, never guessed); formatting
// is the exact inverse, so addresses round-trip between dumps, wire and CLI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace heapleak {

using Address = std::uint64_t;

// "0x7f1a2b" -> 0x7f1a2b. Accepts upper-case hex digits; rejects anything else
// (no prefix, empty digits, more than 16 digits, stray characters).
std::optional<Address> parse_address(std::string_view text);

std::string format_address(Address address);

}  // namespace heapleak
