// Redaction of one dump line: a STRING record's "value" is replaced by a
// keyed hash (SipHash-2-4) in hex of the same decoded byte length, so equal
// strings stay equal, sizes stay true, and the original cannot be read back
// without the key. Other records, and every other field (class, method and
// file names), are kept: heapleak's answers are the same on a redacted dump.
#pragma once

#include <string>
#include <string_view>

#include "core/siphash.h"

namespace heapleak {

class StringRedactor {
 public:
  explicit StringRedactor(const SipKey& key) : key_(key) {}

  // Appends `line` to `out`, its string value redacted. True when a value
  // was replaced.
  bool redact_line(std::string_view line, std::string& out) const;

  // The replacement of a value (JSON-escaped as in the dump) of `length`
  // decoded bytes: lower-case hex, `length` characters.
  std::string mask(std::string_view escaped, std::size_t length) const;

 private:
  SipKey key_;
};

// The decoded byte length of a JSON string body (escapes resolved, \uXXXX
// counted in UTF-8 bytes, a surrogate pair as 4).
std::size_t json_decoded_length(std::string_view escaped);

}  // namespace heapleak
