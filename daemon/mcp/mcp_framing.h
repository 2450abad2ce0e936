// MCP's stdio framing: one JSON-RPC message per line, newline-delimited, no
// headers (not the LSP Content-Length frames of --stdio). This reader splits
// the bytes a ByteStream delivers into lines; replies go out through
// protocol::Outbox in its NDJSON framing (the payload, then "\n").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace heapleak::daemon {

// A line longer than the reader's cap: refused and skipped to its newline
// without being kept.
struct McpLineTooLong {
  std::size_t max_bytes;
};

class McpLineReader {
 public:
  using Event = std::variant<std::string, McpLineTooLong>;

  explicit McpLineReader(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

  // Bytes as read, split anywhere.
  void feed(std::string_view bytes);
  // The input ended: a last line without its newline still counts.
  void finish() { finished_ = true; }
  // The next whole line (without "\n" or "\r\n"; blank lines are skipped), a
  // McpLineTooLong, or nothing until more bytes come.
  std::optional<Event> next();

 private:
  std::size_t max_line_bytes_;
  std::string buffer_;
  std::size_t start_ = 0;  // first byte of buffer_ not handed out yet
  std::size_t scan_ = 0;   // bytes from start_ known to hold no newline
  bool skipping_ = false;  // inside a line that was too long
  bool reported_ = false;  // ... and already reported
  bool finished_ = false;
};

}  // namespace heapleak::daemon
