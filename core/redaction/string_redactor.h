// Redaction of one dump line: every top-level "value" string (a STRING's
// contents, a dynamic SYMBOL's name) is replaced by a keyed hash (SipHash-2-4)
// in hex of the same decoded byte length, so equal values stay equal, sizes
// stay true, and the original cannot be read back without the key. Every
// other field (class, method and file names) is kept: heapleak's answers are
// the same on a redacted dump. Lines are read as JSON objects whatever their
// spacing; one that cannot be read is reported, never copied.
#pragma once

#include <string>
#include <string_view>

#include "core/base/siphash.h"

namespace heapleak {

class StringRedactor {
 public:
  explicit StringRedactor(const SipKey& key) : key_(key) {}

  enum class Outcome { kKept, kRedacted, kUnreadable };

  // Appends `line` to `out` with its values redacted (kRedacted), or as it
  // is when it has none (kKept: another record, a blank line). A line that
  // is not one JSON object, or whose keys are escaped, appends nothing
  // (kUnreadable): what it holds cannot be known to be redacted.
  Outcome redact_line(std::string_view line, std::string& out) const;

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
