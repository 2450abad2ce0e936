#include "core/string_redactor.h"

#include <cstring>

namespace heapleak {
namespace {

// glibc's memmem (two-way): string_view::find stops at every '"' of a JSON
// line to compare, and a dump line is mostly quotes.
std::size_t find(std::string_view haystack, std::string_view needle, std::size_t from = 0) {
  if (from > haystack.size()) return std::string_view::npos;
  const void* at =
      ::memmem(haystack.data() + from, haystack.size() - from, needle.data(), needle.size());
  return at ? static_cast<const char*>(at) - haystack.data() : std::string_view::npos;
}

constexpr std::string_view kStringType = "\"type\":\"STRING\"";
constexpr std::string_view kValue = "\"value\":\"";

// The end of a JSON string body starting at `begin`: the index of its closing
// quote, or npos when the line ends first (a cut line is left as it is).
std::size_t string_end(std::string_view line, std::size_t begin) {
  for (std::size_t k = begin; k < line.size(); ++k) {
    if (line[k] == '\\') {
      ++k;
    } else if (line[k] == '"') {
      return k;
    }
  }
  return std::string_view::npos;
}

unsigned hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

}  // namespace

std::size_t json_decoded_length(std::string_view escaped) {
  std::size_t length = 0;
  for (std::size_t k = 0; k < escaped.size(); ++k) {
    if (escaped[k] != '\\' || k + 1 >= escaped.size()) {
      ++length;
      continue;
    }
    ++k;
    if (escaped[k] != 'u' || k + 4 >= escaped.size()) {
      ++length;
      continue;
    }
    unsigned code = 0;
    for (int d = 1; d <= 4; ++d) code = code * 16 + hex_value(escaped[k + d]);
    k += 4;
    if (code >= 0xD800 && code <= 0xDBFF && k + 6 < escaped.size() && escaped[k + 1] == '\\' &&
        escaped[k + 2] == 'u') {
      length += 4;  // a surrogate pair: one code point past U+FFFF
      k += 6;
    } else {
      length += code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    }
  }
  return length;
}

std::string StringRedactor::mask(std::string_view escaped, std::size_t length) const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(length);
  // One hash of the whole value, then a counter under the key: long values
  // cost one pass, not one per 16 characters.
  const std::uint64_t seed = siphash24(key_, escaped);
  char block_input[16];
  std::memcpy(block_input, &seed, 8);
  for (std::uint64_t block = 0; out.size() < length; ++block) {
    std::memcpy(block_input + 8, &block, 8);
    std::uint64_t h = siphash24(key_, std::string_view(block_input, 16));
    for (int nibble = 0; nibble < 16 && out.size() < length; ++nibble, h >>= 4)
      out.push_back(kHex[h & 15]);
  }
  return out;
}

bool StringRedactor::redact_line(std::string_view line, std::string& out) const {
  if (find(line, kStringType) == std::string_view::npos) {
    out.append(line);
    return false;
  }
  const std::size_t value = find(line, kValue);
  if (value == std::string_view::npos) {
    out.append(line);
    return false;
  }
  const std::size_t begin = value + kValue.size();
  const std::size_t end = string_end(line, begin);
  if (end == std::string_view::npos) {
    out.append(line.substr(0, begin));  // a cut line: nothing of its value is kept
    return true;
  }
  const std::string_view escaped = line.substr(begin, end - begin);
  // The value's own length, not the record's "bytesize": a forged bytesize
  // must not make the mask (and memory) grow without bound.
  const std::size_t length = json_decoded_length(escaped);
  out.append(line.substr(0, begin));
  out.append(mask(escaped, length));
  out.append(line.substr(end));
  return true;
}

}  // namespace heapleak
