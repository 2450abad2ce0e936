#include "core/address.h"

namespace heapleak {

std::optional<Address> parse_address(std::string_view text) {
  if (text.size() < 3 || text.size() > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
    return std::nullopt;
  }
  Address value = 0;
  for (char c : text.substr(2)) {
    unsigned digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    value = (value << 4) | digit;
  }
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
