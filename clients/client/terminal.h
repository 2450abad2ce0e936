// What the terminal allows: width for tables (TIOCGWINSZ, else $COLUMNS, else
// unlimited when piped, else 100), colour (stdout is a TTY and NO_COLOR is unset) and whether
// stderr may carry a progress bar. Reads the environment once; prints nothing.
#pragma once

#include <string>
#include <string_view>

#include "results/text/human_bytes.h"

namespace heapleak::client {

struct Terminal {
  int width = 100;
  bool color = false;       // ANSI colour on stdout
  bool stderr_tty = false;  // progress bars on stderr

  static Terminal detect();

  // `text` wrapped in an SGR sequence ("1" bold, "36" cyan...) when colour is on.
  std::string paint(std::string_view text, std::string_view sgr) const;
};

// Display width of UTF-8 text, one column per code point.
std::size_t display_width(std::string_view text);

// `text` cut to `width` columns with "..." in the middle when cut, keeping
// more of the end ("app/mod...ls/user.rb:42").
std::string truncate(std::string_view text, std::size_t width);

// 1536 -> "1.5 KiB"; the one rule of both CLIs (results/text/human_bytes.h).
using text::human_bytes;

}  // namespace heapleak::client
