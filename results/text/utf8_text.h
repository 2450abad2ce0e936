// UTF-8 text where it is cut or checked: the one rule for cutting text to a
// byte budget without splitting a character (a reply line cut mid-character
// is invalid UTF-8, and strict JSON clients reject the whole message), and a
// decoder for those that must check each code point (XML's allowed set).
#pragma once

#include <cstddef>
#include <string_view>

namespace heapleak::text {

// The longest prefix of `text` of at most `max_bytes` bytes that does not
// end inside a UTF-8 character (bytes that are not UTF-8 are cut anywhere).
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

// The code point at text[at], `at` moved past it; a byte that starts no
// valid sequence (overlong, surrogate, past U+10FFFF, cut short) gives
// U+FFFD and moves one byte.
char32_t next_code_point(std::string_view text, std::size_t& at);

}  // namespace heapleak::text
