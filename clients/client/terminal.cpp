#include "clients/client/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace heapleak::client {

Terminal Terminal::detect() {
  Terminal term;
  winsize size{};
  if (::isatty(1) && ::ioctl(1, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    term.width = size.ws_col;
  } else if (const char* columns = std::getenv("COLUMNS"); columns && std::atoi(columns) > 0) {
    term.width = std::atoi(columns);
  } else if (!::isatty(1)) {
    // Piped with no $COLUMNS: nothing to fit, so cut nothing (class names
    // and file:line keys stay whole for grep and scripts).
    term.width = 1 << 20;
  }
  const char* no_color = std::getenv("NO_COLOR");
  term.color = ::isatty(1) && !(no_color && *no_color);
  term.stderr_tty = ::isatty(2);
  return term;
}

std::string Terminal::paint(std::string_view text, std::string_view sgr) const {
  if (!color || sgr.empty()) return std::string(text);
  return "\x1b[" + std::string(sgr) + "m" + std::string(text) + "\x1b[0m";
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}

std::string truncate(std::string_view text, std::size_t width) {
  const std::size_t total = display_width(text);
  if (total <= width) return std::string(text);
  if (width <= 3) return std::string(width, '.');
  // Elide the middle and keep more of the end: `--by site` keys keep their
  // file:line, namespaced class names their last segment.
  const std::size_t head = (width - 3) / 3;
  const std::size_t tail = width - 3 - head;
  // Byte offset where column `column` starts (code points are one column).
  auto offset_of = [&](std::size_t column) {
    std::size_t columns = 0;
    for (std::size_t k = 0; k < text.size(); ++k) {
      if ((static_cast<unsigned char>(text[k]) & 0xC0) != 0x80) {
        if (columns == column) return k;
        ++columns;
      }
    }
    return text.size();
  };
  return std::string(text.substr(0, offset_of(head))) + "..." +
         std::string(text.substr(offset_of(total - tail)));
}

}  // namespace heapleak::client
