// Incremental frame reader: feed it bytes split anywhere (one at a time is
// fine) and pull whole message payloads. Detects LSP Content-Length framing vs
// newline-delimited JSON per message, guards sizes without allocating the
// announced length, reports garbage and resynchronises. No JSON parsing here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "protocol/framing.h"

namespace heapleak::protocol {

struct FrameReaderOptions {
  // Largest payload accepted (either framing). Larger ones are refused unread.
  std::size_t max_message_bytes = std::size_t{256} << 20;
  // Largest header block; a "header" longer than this is garbage.
  std::size_t max_header_bytes = std::size_t{64} << 10;
  // An oversize Content-Length up to this is believed and its body skipped
  // exactly (an honest peer sent too much); beyond it the length is a lie, so
  // we scan for the next plausible message start instead of waiting forever.
  std::uint64_t max_skip_bytes = std::uint64_t{4} << 30;
};

struct Frame {
  Framing framing;
  std::string payload;
};

enum class FrameErrorKind {
  kGarbage,    // bytes that are neither a header nor JSON
  kBadHeader,  // header block without a usable Content-Length, or too long
  kTooLarge,   // announced or actual size over max_message_bytes
  kTruncated,  // input ended inside a frame
};

struct FrameError {
  FrameErrorKind kind;
  Framing framing;  // best guess at the peer's framing, to answer in it
  std::string message;
};

using FrameEvent = std::variant<Frame, FrameError>;

class FrameReader {
 public:
  explicit FrameReader(FrameReaderOptions options = {});

  // Appends bytes. Call next() until it returns nullopt after each feed so the
  // buffer stays bounded (skipped bodies are dropped here, never buffered).
  void feed(std::string_view bytes);

  // The next complete frame or error, or nullopt when more bytes are needed.
  std::optional<FrameEvent> next();

  // End of input: afterwards next() flushes an unterminated last NDJSON line
  // and reports a frame cut short. Later feeds are ignored.
  void finish() { eof_ = true; }

  std::size_t buffered_bytes() const { return buffer_.size() - pos_; }

  // Applies to messages not yet started (a session raises it after initialize).
  void set_max_message_bytes(std::size_t bytes) { options_.max_message_bytes = bytes; }

 private:
  enum class State {
    kIdle,
    kHeaders,
    kBody,
    kNdjsonLine,
    kSkipBody,
    kSkipLine,
    kScan,
    kSkipHeaders,  // the rest of a header block over the limit, then its body
  };

  std::optional<FrameEvent> read_headers();
  // Consumes the lines of an over-long header block, one at a time, to its
  // end; then skips its body (by its Content-Length) so the next frame is read.
  bool skip_headers();
  void end_header_block();
  std::optional<FrameEvent> garbage(std::string_view detail);
  void start_headers();
  void compact();

  FrameReaderOptions options_;
  std::string buffer_;
  std::size_t pos_ = 0;       // first unconsumed byte of buffer_
  std::size_t searched_ = 0;  // bytes after pos_ already searched for '\n'
  State state_ = State::kIdle;
  bool eof_ = false;
  bool in_garbage_ = false;          // report one error per run of garbage
  bool scan_at_line_start_ = false;  // kScan begins right after a header block
  Framing last_framing_ = Framing::kContentLength;

  // Header block being read.
  std::size_t header_bytes_ = 0;
  std::size_t header_lines_ = 0;
  std::optional<std::uint64_t> content_length_;
  std::string bad_length_;  // last unparsable Content-Length value

  std::uint64_t body_length_ = 0;
  std::uint64_t skip_remaining_ = 0;
};

}  // namespace heapleak::protocol
