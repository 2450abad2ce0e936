#include "results/text/utf8_text.h"

namespace heapleak::text {

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  const auto continuation = [&](std::size_t k) {
    return (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80;
  };
  // text[cut] is the first byte left out: while it continues a character,
  // cut before that character's lead byte (at most 3 back).
  std::size_t cut = max_bytes;
  for (int back = 0; back < 3 && cut > 0 && continuation(cut); ++back) --cut;
  if (continuation(cut)) cut = max_bytes;  // not UTF-8 there: any cut will do
  return text.substr(0, cut);
}

char32_t next_code_point(std::string_view text, std::size_t& at) {
  constexpr char32_t kReplacement = 0xFFFD;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) {
    ++at;
    return lead;
  }
  std::size_t length = 0;
  char32_t code = 0;
  char32_t min = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, code = lead & 0x1F, min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, code = lead & 0x0F, min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, code = lead & 0x07, min = 0x10000;
  } else {
    ++at;
    return kReplacement;
  }
  if (at + length > text.size()) {
    ++at;
    return kReplacement;
  }
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(at + k) & 0xC0) != 0x80) {
      ++at;
      return kReplacement;
    }
    code = (code << 6) | (byte(at + k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
    ++at;
    return kReplacement;
  }
  at += length;
  return code;
}

}  // namespace heapleak::text
