// The one escaping rule for dump strings on screens (results/text/terminal_safe.h).
#include "results/text/terminal_safe.h"

#include <catch2/catch.hpp>

using heapleak::text::shown;

TEST_CASE("printable ASCII and UTF-8 pass unchanged", "[terminal_safe]") {
  CHECK(shown("UserCache::Entry") == "UserCache::Entry");
  CHECK(shown("app/models/caf\xC3\xA9.rb:12") == "app/models/caf\xC3\xA9.rb:12");
  CHECK(shown("\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80") ==
        "\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80");
  CHECK(shown("") == "");
}

TEST_CASE("C0 controls and DEL are written as \\xHH", "[terminal_safe]") {
  // An OSC 0 title change, a bell, a CSI clear screen: none reaches the terminal.
  CHECK(shown("\x1b]0;pwned\x07") == "\\x1B]0;pwned\\x07");
  CHECK(shown("a\x1b[2Jb") == "a\\x1B[2Jb");
  CHECK(shown("line\nnext\ttab\rback") == "line\\x0Anext\\x09tab\\x0Dback");
  CHECK(shown(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(shown("del\x7f") == "del\\x7F");
}

TEST_CASE("C1 controls and bidi controls are written as \\u{HHHH}", "[terminal_safe]") {
  CHECK(shown("\xC2\x9B"
              "2J") == "\\u{009B}2J");  // CSI as one code point
  CHECK(shown("\xC2\x9D"
              "0;t\xC2\x9C") == "\\u{009D}0;t\\u{009C}");  // OSC ... ST
  CHECK(shown("evil\xE2\x80\xAE"
              "cod.rb") == "evil\\u{202E}cod.rb");                     // right-to-left override
  CHECK(shown("\xE2\x81\xA6x\xE2\x81\xA9") == "\\u{2066}x\\u{2069}");  // isolates
  CHECK(shown("\xE2\x80\x8F") == "\\u{200F}");                         // RLM
  CHECK(shown("\xE2\x80\xA8") == "\\u{2028}");                         // line separator
  CHECK(shown("\xC2\xA0") == "\xC2\xA0");  // NBSP is printable: unchanged
}

TEST_CASE("bytes that are not UTF-8 are written as \\xHH, one by one", "[terminal_safe]") {
  CHECK(shown("a\xFF"
              "b") == "a\\xFFb");
  CHECK(shown("\xC0\x80") == "\\xC0\\x80");           // overlong NUL
  CHECK(shown("\xED\xA0\x80") == "\\xED\\xA0\\x80");  // a surrogate
  CHECK(shown("cut \xE2\x80") == "cut \\xE2\\x80");   // a sequence cut short
  CHECK(shown("\xC2\x1b") == "\\xC2\\x1B");           // a lead byte before ESC hides nothing
}

TEST_CASE("shown_lines keeps the line breaks of a whole text", "[terminal_safe]") {
  using heapleak::text::shown_lines;
  CHECK(shown_lines("a\x1b[2J\nb\x07\n") == "a\\x1B[2J\nb\\x07\n");
  CHECK(shown_lines("no break") == "no break");
  CHECK(shown_lines("\n\n") == "\n\n");
  CHECK(shown_lines("cr\r\n") == "cr\\x0D\n");
}
