#include "core/redaction/string_redactor.h"

#include <cstring>

namespace heapleak {
namespace {

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

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::size_t skip_space(std::string_view text, std::size_t at) {
  while (at < text.size() && is_space(text[at])) ++at;
  return at;
}

// The end (one past) of the JSON value at `at`, or npos when it is not one:
// strings, nested arrays and objects (depth counted, no recursion), or a
// number/literal (its characters up to a delimiter; their spelling is the
// loader's business, it carries no text to redact).
std::size_t value_end(std::string_view text, std::size_t at) {
  if (at >= text.size()) return std::string_view::npos;
  if (text[at] == '"') {
    const std::size_t close = string_end(text, at + 1);
    return close == std::string_view::npos ? close : close + 1;
  }
  if (text[at] == '{' || text[at] == '[') {
    std::size_t depth = 0;
    for (std::size_t k = at; k < text.size(); ++k) {
      const char c = text[k];
      if (c == '"') {
        k = string_end(text, k + 1);
        if (k == std::string_view::npos) return k;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return k + 1;
      }
    }
    return std::string_view::npos;
  }
  std::size_t k = at;
  while (k < text.size() && !is_space(text[k]) && text[k] != ',' && text[k] != '}' &&
         text[k] != ']' && text[k] != '"' && text[k] != '{' && text[k] != '[')
    ++k;
  return k == at ? std::string_view::npos : k;
}

constexpr std::string_view kValueKey = "value";

// Whether the loader counts a line with these value bytes broken: a NUL
// (core/reading/record_parser.cpp checks), or bytes that are not UTF-8 (simdjson
// validates the line): Ruby writes binary Strings' bytes raw.
bool loader_refuses(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  for (std::size_t k = 0; k < n;) {
    const unsigned c = p[k];
    if (c == 0) return true;
    if (c < 0x80) {
      ++k;
      continue;
    }
    std::size_t more = 0;
    unsigned low = 0x80, high = 0xBF;  // the range of the byte after the lead
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      more = 2;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      more = 3;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return true;
    }
    if (k + more >= n) return true;  // cut short
    for (std::size_t j = 1; j <= more; ++j) {
      const unsigned b = p[k + j];
      if (j == 1 ? (b < low || b > high) : (b < 0x80 || b > 0xBF)) return true;
    }
    k += more + 1;
  }
  return false;
}

}  // namespace

StringRedactor::Outcome StringRedactor::redact_line(std::string_view line, std::string& out) const {
  std::size_t at = skip_space(line, 0);
  if (at == line.size()) {  // a blank line
    out.append(line);
    return Outcome::kKept;
  }
  if (line[at] != '{') return Outcome::kUnreadable;
  // The bodies of the top-level "value" strings, as [begin, end) pairs.
  std::size_t spans[16][2];
  std::size_t found = 0;
  at = skip_space(line, at + 1);
  if (at < line.size() && line[at] == '}') {
    at = at + 1;
  } else {
    for (;;) {
      if (at >= line.size() || line[at] != '"') return Outcome::kUnreadable;
      const std::size_t key_end = string_end(line, at + 1);
      if (key_end == std::string_view::npos) return Outcome::kUnreadable;
      const std::string_view key = line.substr(at + 1, key_end - at - 1);
      // Ruby never escapes a key: one that is could spell "value" unseen.
      if (key.find('\\') != std::string_view::npos) return Outcome::kUnreadable;
      at = skip_space(line, key_end + 1);
      if (at >= line.size() || line[at] != ':') return Outcome::kUnreadable;
      at = skip_space(line, at + 1);
      const std::size_t end = value_end(line, at);
      if (end == std::string_view::npos) return Outcome::kUnreadable;
      if (key == kValueKey && line[at] == '"') {
        if (found == std::size(spans)) return Outcome::kUnreadable;  // no record has 16
        spans[found][0] = at + 1;
        spans[found][1] = end - 1;
        ++found;
      }
      at = skip_space(line, end);
      if (at < line.size() && line[at] == ',') {
        at = skip_space(line, at + 1);
        continue;
      }
      if (at < line.size() && line[at] == '}') {
        ++at;
        break;
      }
      return Outcome::kUnreadable;
    }
  }
  if (skip_space(line, at) != line.size()) return Outcome::kUnreadable;  // more after the object
  std::size_t copied = 0;
  for (std::size_t k = 0; k < found; ++k) {
    const std::string_view escaped = line.substr(spans[k][0], spans[k][1] - spans[k][0]);
    out.append(line.substr(copied, spans[k][0] - copied));
    // The value's own length, not the record's "bytesize": a forged bytesize
    // must not make the mask (and memory) grow without bound.
    std::string masked = mask(escaped, json_decoded_length(escaped));
    // A line the loader skips as broken must stay broken in the copy, or
    // the copy would load an object the dump did not: one byte that is not
    // UTF-8 (0xFF) in place of the mask's first keeps it so.
    if (!masked.empty() && loader_refuses(escaped)) masked[0] = '\xFF';
    out.append(masked);
    copied = spans[k][1];
  }
  out.append(line.substr(copied));
  return found > 0 ? Outcome::kRedacted : Outcome::kKept;
}

}  // namespace heapleak
