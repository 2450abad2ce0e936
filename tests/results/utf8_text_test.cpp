// clients/common/utf8_text.h: the one rule for cutting text to a byte budget
// (never inside a UTF-8 character) and the decoder the XML writer checks with.
#include "results/text/utf8_text.h"

#include <catch2/catch.hpp>
#include <string>

using heapleak::text::next_code_point;
using heapleak::text::utf8_prefix;

TEST_CASE("utf8_prefix never ends inside a character") {
  CHECK(utf8_prefix("hello", 10) == "hello");
  CHECK(utf8_prefix("hello", 3) == "hel");
  const std::string euro =
      "a\xE2\x82\xAC"  // a €
      "b";
  CHECK(utf8_prefix(euro, 1) == "a");
  CHECK(utf8_prefix(euro, 2) == "a");
  CHECK(utf8_prefix(euro, 3) == "a");
  CHECK(utf8_prefix(euro, 4) == "a\xE2\x82\xAC");
  const std::string emoji = "\xF0\x9F\x98\x80\xF0\x9F\x98\x80";
  for (std::size_t k = 0; k < 4; ++k) CHECK(utf8_prefix(emoji, k).empty());
  CHECK(utf8_prefix(emoji, 4).size() == 4);
  CHECK(utf8_prefix(emoji, 7).size() == 4);
  // Not UTF-8 (continuation bytes only): cut where asked.
  CHECK(utf8_prefix("\x80\x80\x80\x80\x80\x80", 5).size() == 5);
}

TEST_CASE("next_code_point decodes UTF-8 and replaces what is not") {
  auto decode = [](const std::string& text) {
    std::u32string out;
    for (std::size_t at = 0; at < text.size();) out += next_code_point(text, at);
    return out;
  };
  CHECK(decode("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80") == U"a\u00E9\u20AC\U0001F600");
  CHECK(decode("\xEF\xBF\xBF") == U"\uFFFF");
  CHECK(decode("\xC0\xAF") == U"\uFFFD\uFFFD");            // overlong
  CHECK(decode("\xED\xA0\x80") == U"\uFFFD\uFFFD\uFFFD");  // a surrogate
  CHECK(decode("\xE2\x82") == U"\uFFFD\uFFFD");            // cut short
  CHECK(decode("\xF5\x80\x80\x80") == U"\uFFFD\uFFFD\uFFFD\uFFFD");
}
