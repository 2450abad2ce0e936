#include "daemon/mcp/mcp_framing.h"

namespace heapleak::daemon {

void McpLineReader::feed(std::string_view bytes) {
  // Drop what was handed out before growing, so the buffer holds one line's worth.
  if (start_ > 0 && (start_ == buffer_.size() || start_ > (1u << 16))) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  buffer_.append(bytes);
}

std::optional<McpLineReader::Event> McpLineReader::next() {
  for (;;) {
    const std::size_t newline = buffer_.find('\n', start_ + scan_);
    if (newline == std::string::npos) {
      const std::size_t pending = buffer_.size() - start_;
      if (skipping_ || pending > max_line_bytes_) {
        // Too long: forget it as it streams by, and say so once.
        buffer_.clear();
        start_ = scan_ = 0;
        const bool report = !reported_;
        skipping_ = reported_ = true;
        if (report) return McpLineTooLong{max_line_bytes_};
        return std::nullopt;
      }
      if (!finished_ || pending == 0) {
        scan_ = pending;
        return std::nullopt;
      }
      // End of input: the last line needs no newline.
      std::string line = buffer_.substr(start_);
      buffer_.clear();
      start_ = scan_ = 0;
      if (line.find_first_not_of(" \t\r") == std::string::npos) return std::nullopt;
      return Event(std::move(line));
    }
    std::string_view line(buffer_.data() + start_, newline - start_);
    start_ = newline + 1;
    scan_ = 0;
    if (skipping_) {
      skipping_ = reported_ = false;
      continue;  // the tail of the line that was too long
    }
    if (line.size() > max_line_bytes_) return McpLineTooLong{max_line_bytes_};
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank
    return Event(std::string(line));
  }
}

}  // namespace heapleak::daemon
