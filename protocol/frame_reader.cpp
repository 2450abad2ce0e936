#include "protocol/frame_reader.h"

#include <algorithm>
#include <limits>

namespace heapleak::protocol {
namespace {

constexpr std::string_view kContentLengthName = "content-length";
constexpr std::string_view kContentLengthMarker = "content-length:";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != b[i]) return false;
  }
  return true;
}

// Position of "content-length:" (any case) in text, or npos.
std::size_t find_marker(std::string_view text) {
  const std::size_t n = kContentLengthMarker.size();
  for (std::size_t i = 0; i + n <= text.size(); ++i) {
    if (iequals(text.substr(i, n), kContentLengthMarker)) return i;
  }
  return std::string_view::npos;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_token(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

// Decimal digits only; saturates at uint64 max so 10^30 is "absurd", not wrapped.
std::optional<std::uint64_t> parse_length(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    value = value > (kMax - digit) / 10 ? kMax : value * 10 + digit;
  }
  return value;
}

std::string_view strip_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

FrameReader::FrameReader(FrameReaderOptions options) : options_(options) {}

void FrameReader::compact() {
  if (pos_ == buffer_.size()) {
    buffer_.clear();
    pos_ = 0;
  } else if (pos_ > 4096 && pos_ > buffer_.size() / 2) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
}

void FrameReader::feed(std::string_view bytes) {
  if (eof_) return;
  compact();
  // Bytes we are skipping are dropped before they are ever buffered.
  if (pos_ == buffer_.size()) {
    if (state_ == State::kSkipBody) {
      const auto n =
          static_cast<std::size_t>(std::min<std::uint64_t>(skip_remaining_, bytes.size()));
      bytes.remove_prefix(n);
      skip_remaining_ -= n;
      if (skip_remaining_ == 0) state_ = State::kIdle;
    } else if (state_ == State::kSkipLine) {
      const std::size_t nl = bytes.find('\n');
      if (nl == std::string_view::npos) return;
      bytes.remove_prefix(nl + 1);
      state_ = State::kIdle;
    }
  }
  buffer_.append(bytes);
}

void FrameReader::start_headers() {
  state_ = State::kHeaders;
  searched_ = 0;
  header_bytes_ = 0;
  header_lines_ = 0;
  content_length_.reset();
  bad_length_.clear();
}

// Input bytes quoted in an error message: printable ASCII as is, the rest as
// \xNN. The message goes into a JSON reply, and raw bytes that are not UTF-8
// would make that reply invalid JSON.
static std::string quoted_input(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  return out;
}

std::optional<FrameEvent> FrameReader::garbage(std::string_view detail) {
  state_ = State::kIdle;
  if (in_garbage_) return std::nullopt;
  in_garbage_ = true;
  return FrameError{FrameErrorKind::kGarbage, last_framing_,
                    "skipped bytes that are neither a header nor JSON: " + quoted_input(detail)};
}

std::optional<FrameEvent> FrameReader::next() {
  while (true) {
    const std::string_view pending = std::string_view(buffer_).substr(pos_);
    switch (state_) {
      case State::kIdle: {
        std::size_t skip = 0;
        while (skip < pending.size() && is_space(pending[skip])) ++skip;
        pos_ += skip;
        if (skip == pending.size()) return std::nullopt;
        const char first = pending[skip];
        if (first == '{' || first == '[') {
          state_ = State::kNdjsonLine;
          searched_ = 0;
        } else {
          start_headers();
        }
        continue;
      }

      case State::kNdjsonLine: {
        const std::size_t nl = pending.find('\n', searched_);
        if (nl == std::string_view::npos) {
          searched_ = pending.size();
          if (pending.size() > options_.max_message_bytes) {
            pos_ = buffer_.size();
            state_ = State::kSkipLine;
            return FrameError{FrameErrorKind::kTooLarge, Framing::kNdjson,
                              "NDJSON line longer than " +
                                  std::to_string(options_.max_message_bytes) + " bytes; skipped"};
          }
          if (!eof_) return std::nullopt;
          pos_ = buffer_.size();
          state_ = State::kIdle;
          in_garbage_ = false;
          last_framing_ = Framing::kNdjson;
          return Frame{Framing::kNdjson, std::string(strip_cr(pending))};
        }
        const std::string_view line = strip_cr(pending.substr(0, nl));
        pos_ += nl + 1;
        state_ = State::kIdle;
        if (line.size() > options_.max_message_bytes) {
          return FrameError{FrameErrorKind::kTooLarge, Framing::kNdjson,
                            "NDJSON line of " + std::to_string(line.size()) +
                                " bytes is over the limit; skipped"};
        }
        in_garbage_ = false;
        last_framing_ = Framing::kNdjson;
        return Frame{Framing::kNdjson, std::string(line)};
      }

      case State::kSkipLine: {
        const std::size_t nl = pending.find('\n');
        if (nl == std::string_view::npos) {
          pos_ = buffer_.size();
          return std::nullopt;
        }
        pos_ += nl + 1;
        state_ = State::kIdle;
        continue;
      }

      case State::kSkipHeaders: {
        if (!skip_headers()) return std::nullopt;  // needs more bytes
        continue;
      }

      case State::kHeaders: {
        if (auto event = read_headers()) return event;
        if (state_ == State::kHeaders) return std::nullopt;  // needs more bytes
        continue;
      }

      case State::kBody: {
        if (pending.size() < body_length_) {
          if (!eof_) return std::nullopt;
          pos_ = buffer_.size();
          state_ = State::kIdle;
          return FrameError{FrameErrorKind::kTruncated, Framing::kContentLength,
                            "input ended inside a frame: expected " + std::to_string(body_length_) +
                                " bytes, got " + std::to_string(pending.size())};
        }
        const auto n = static_cast<std::size_t>(body_length_);
        Frame frame{Framing::kContentLength, std::string(pending.substr(0, n))};
        pos_ += n;
        state_ = State::kIdle;
        in_garbage_ = false;
        last_framing_ = Framing::kContentLength;
        return frame;
      }

      case State::kSkipBody: {
        const auto n =
            static_cast<std::size_t>(std::min<std::uint64_t>(skip_remaining_, pending.size()));
        pos_ += n;
        skip_remaining_ -= n;
        if (skip_remaining_ > 0) return std::nullopt;
        state_ = State::kIdle;
        continue;
      }

      case State::kScan: {
        // Resynchronise on the next "Content-Length:" anywhere or a '{'/'['
        // opening a line; keep a tail in case a marker straddles two feeds.
        std::size_t found = find_marker(pending);
        if (scan_at_line_start_ && !pending.empty()) {
          // Right after a header block a JSON line may start at once; unless a
          // header follows on that line (then it is the start of a lying body).
          if (pending[0] == '{' || pending[0] == '[') {
            const std::size_t nl = pending.find('\n');
            if (nl == std::string_view::npos && !eof_ &&
                pending.size() <= options_.max_header_bytes)
              return std::nullopt;  // decide once the line is whole
            if (find_marker(pending.substr(0, nl)) == std::string_view::npos) found = 0;
          }
          scan_at_line_start_ = false;
        }
        for (std::size_t i = 0; i + 1 < pending.size() && i < found; ++i) {
          if (pending[i] == '\n' && (pending[i + 1] == '{' || pending[i + 1] == '[')) {
            found = i + 1;
            break;
          }
        }
        if (found != std::string_view::npos) {
          pos_ += found;
          state_ = State::kIdle;
          continue;
        }
        const std::size_t keep = kContentLengthMarker.size() - 1;
        if (pending.size() > keep) pos_ += pending.size() - keep;
        if (eof_) pos_ = buffer_.size();
        return std::nullopt;
      }
    }
  }
}

bool FrameReader::skip_headers() {
  while (true) {
    const std::string_view pending = std::string_view(buffer_).substr(pos_);
    const std::size_t nl = pending.find('\n', searched_);
    if (nl == std::string_view::npos) {
      searched_ = pending.size();
      // One line over the limit by itself: no block end to find, scan instead.
      if (pending.size() > options_.max_header_bytes) {
        pos_ += 1;
        state_ = State::kScan;
        return true;
      }
      if (eof_) {
        pos_ = buffer_.size();
        state_ = State::kIdle;
        return true;
      }
      return false;
    }
    const std::string_view line = strip_cr(pending.substr(0, nl));
    searched_ = 0;
    const std::size_t colon = line.find(':');
    if (!line.empty() && (colon == std::string_view::npos || !is_token(line.substr(0, colon)))) {
      state_ = State::kIdle;  // not a header any more: read it afresh
      return true;
    }
    pos_ += nl + 1;
    if (line.empty()) {
      end_header_block();
      return true;
    }
    if (iequals(line.substr(0, colon), kContentLengthName)) {
      content_length_ = parse_length(trim(line.substr(colon + 1)));
    }
  }
}

void FrameReader::end_header_block() {
  if (!content_length_) {
    state_ = State::kIdle;
  } else if (*content_length_ <= options_.max_skip_bytes) {
    skip_remaining_ = *content_length_;
    state_ = skip_remaining_ > 0 ? State::kSkipBody : State::kIdle;
  } else {
    state_ = State::kScan;
    scan_at_line_start_ = true;
  }
}

// Consumes header lines. Returns an event when the block ends in an error;
// leaves state_ == kHeaders when it needs more bytes, otherwise moves on.
std::optional<FrameEvent> FrameReader::read_headers() {
  while (true) {
    const std::string_view pending = std::string_view(buffer_).substr(pos_);
    const std::size_t nl = pending.find('\n', searched_);
    if (nl == std::string_view::npos) {
      searched_ = pending.size();
      if (header_bytes_ + pending.size() > options_.max_header_bytes &&
          pending.size() <= options_.max_header_bytes) {
        // The block is over the limit, not this line: read on to its end.
        state_ = State::kSkipHeaders;
        return FrameError{FrameErrorKind::kBadHeader, Framing::kContentLength,
                          "header block longer than " + std::to_string(options_.max_header_bytes) +
                              " bytes; its message is skipped"};
      }
      if (header_bytes_ + pending.size() > options_.max_header_bytes) {
        pos_ += 1;  // step past this header's start, or the scan finds its marker again at once
        state_ = State::kScan;
        return FrameError{FrameErrorKind::kBadHeader, Framing::kContentLength,
                          "header longer than " + std::to_string(options_.max_header_bytes) +
                              " bytes; resynchronising"};
      }
      if (!eof_) return std::nullopt;
      pos_ = buffer_.size();
      state_ = State::kIdle;
      if (header_lines_ == 0) return garbage(pending.substr(0, 40));
      return FrameError{FrameErrorKind::kTruncated, Framing::kContentLength,
                        "input ended inside a header block"};
    }
    const std::size_t line_start = pos_;
    const std::string_view line = strip_cr(pending.substr(0, nl));
    header_bytes_ += nl + 1;
    pos_ += nl + 1;
    searched_ = 0;

    if (line.empty()) {  // end of the header block
      if (!content_length_) {
        state_ = State::kIdle;
        return FrameError{FrameErrorKind::kBadHeader, Framing::kContentLength,
                          bad_length_.empty() ? std::string("header block without Content-Length")
                                              : "invalid Content-Length: " + bad_length_};
      }
      const std::uint64_t length = *content_length_;
      const std::string limit = std::to_string(options_.max_message_bytes);
      if (length <= options_.max_message_bytes) {
        body_length_ = length;
        state_ = State::kBody;
        return std::nullopt;
      }
      if (length <= options_.max_skip_bytes) {
        skip_remaining_ = length;
        state_ = State::kSkipBody;
        return FrameError{FrameErrorKind::kTooLarge, Framing::kContentLength,
                          "Content-Length " + std::to_string(length) + " is over the limit of " +
                              limit + " bytes; message skipped"};
      }
      state_ = State::kScan;
      scan_at_line_start_ = true;
      return FrameError{FrameErrorKind::kTooLarge, Framing::kContentLength,
                        "Content-Length " + std::to_string(length) + " is absurd (limit " + limit +
                            " bytes); resynchronising"};
    }
    if (header_bytes_ > options_.max_header_bytes && nl + 1 > options_.max_header_bytes) {
      state_ = State::kIdle;  // one long line, consumed; the next one starts fresh
      return FrameError{FrameErrorKind::kBadHeader, Framing::kContentLength,
                        "header line longer than " + std::to_string(options_.max_header_bytes) +
                            " bytes; resynchronising"};
    }
    if (header_bytes_ > options_.max_header_bytes) {
      // Read on to the block's end without keeping it, then skip its body.
      state_ = State::kSkipHeaders;
      pos_ = line_start;
      return FrameError{FrameErrorKind::kBadHeader, Framing::kContentLength,
                        "header block longer than " + std::to_string(options_.max_header_bytes) +
                            " bytes; its message is skipped"};
    }

    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
      // Not a header. If a real header starts later on this line, resume there.
      const std::size_t marker = find_marker(line);
      if (marker != std::string_view::npos && marker > 0) pos_ = line_start + marker;
      // A JSON line where a header was expected: report, then read it as NDJSON.
      if (line.front() == '{' || line.front() == '[') pos_ = line_start;
      if (header_lines_ == 0) return garbage(line.substr(0, 40));
      state_ = State::kIdle;
      return FrameError{FrameErrorKind::kBadHeader, Framing::kContentLength,
                        "malformed header line: " + quoted_input(line.substr(0, 40))};
    }
    ++header_lines_;
    if (iequals(line.substr(0, colon), kContentLengthName)) {
      const std::string_view value = trim(line.substr(colon + 1));
      content_length_ = parse_length(value);  // a repeated header: the last one wins
      bad_length_ = content_length_ ? std::string() : quoted_input(value.substr(0, 40));
    }
  }
}

}  // namespace heapleak::protocol
