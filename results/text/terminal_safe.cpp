#include "results/text/terminal_safe.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace heapleak::text {
namespace {

// Code points that change how a terminal lays out or interprets what follows.
bool is_unsafe(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) ||      // C1 controls (CSI, OSC, ST as one code point)
         cp == 0x061C ||                    // Arabic letter mark
         cp == 0x200E || cp == 0x200F ||    // LRM, RLM
         (cp >= 0x2028 && cp <= 0x202E) ||  // line/paragraph separators, embeddings, overrides
         (cp >= 0x2066 && cp <= 0x2069);    // isolates
}

// The length of the valid UTF-8 sequence starting at text[k] and its code
// point, or 0 when the bytes there are not one (overlong, surrogate, cut).
std::size_t decode(std::string_view text, std::size_t k, std::uint32_t& cp) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(k);
  std::size_t length = 0;
  std::uint32_t min = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, cp = lead & 0x1F, min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, cp = lead & 0x0F, min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, cp = lead & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (k + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(k + i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(k + i) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

std::string shown(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  char escape[16];
  for (std::size_t k = 0; k < raw.size();) {
    const unsigned char c = static_cast<unsigned char>(raw[k]);
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
      ++k;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t length = c < 0x80 ? 0 : decode(raw, k, cp);
    if (length == 0) {  // a C0 control, DEL, or a byte that is not UTF-8
      std::snprintf(escape, sizeof escape, "\\x%02X", c);
      out += escape;
      ++k;
    } else if (is_unsafe(cp)) {
      std::snprintf(escape, sizeof escape, "\\u{%04X}", static_cast<unsigned>(cp));
      out += escape;
      k += length;
    } else {
      out.append(raw.substr(k, length));
      k += length;
    }
  }
  return out;
}

std::string shown_lines(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t start = 0; start <= raw.size();) {
    const std::size_t end = std::min(raw.find('\n', start), raw.size());
    out += shown(raw.substr(start, end - start));
    if (end == raw.size()) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace heapleak::text
