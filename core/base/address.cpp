#include "core/base/address.h"

#include <array>

namespace heapleak {

namespace {

// Hex digit values, 0xff for anything else: the loader parses every
// reference of every object, so this is on the hottest path.
constexpr std::array<std::uint8_t, 256> make_hex_table() {
  std::array<std::uint8_t, 256> table{};
  for (auto& entry : table) entry = 0xff;
  for (int c = '0'; c <= '9'; ++c) table[c] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) table[c] = static_cast<std::uint8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) table[c] = static_cast<std::uint8_t>(c - 'A' + 10);
  return table;
}
constexpr auto kHexValue = make_hex_table();

}  // namespace

std::optional<Address> parse_address(std::string_view text) {
  if (text.size() < 3 || text.size() > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
    return std::nullopt;
  }
  Address value = 0;
  std::uint8_t invalid = 0;
  for (std::size_t k = 2; k < text.size(); ++k) {
    const std::uint8_t digit = kHexValue[static_cast<unsigned char>(text[k])];
    invalid |= digit;  // any 0xff sets the high bits, which no digit has
    value = (value << 4) | (digit & 0xf);
  }
  if (invalid & 0xf0) return std::nullopt;
  return value;
}

std::string format_address(Address address) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char buffer[18];
  int pos = 18;
  do {
    buffer[--pos] = kDigits[address & 0xf];
    address >>= 4;
  } while (address != 0);
  buffer[--pos] = 'x';
  buffer[--pos] = '0';
  return std::string(buffer + pos, buffer + 18);
}

}  // namespace heapleak
