// `heapleak redact`: a dump copied with every String and Symbol value
// redacted (core/redaction/string_redactor.h), streaming, plain or gzip in and out.
// The copy is written by core/base/safe_write.h (an exclusive 0600 temporary
// renamed only once complete), so a full disk never leaves a file that looks
// redacted; a dump with a line that cannot be read is refused, not copied.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/error.h"
#include "core/base/siphash.h"

namespace heapleak {

struct RedactionStats {
  std::uint64_t lines = 0;
  std::uint64_t values_redacted = 0;  // records whose String or Symbol value was replaced
  std::uint64_t bytes_in = 0;         // decompressed
  std::uint64_t bytes_out = 0;        // decompressed
  bool truncated = false;             // the input was cut short: what could be read was copied
};

// Writes `out` gzip-compressed (level 1) when its name ends in ".gz", plain
// otherwise; a device or FIFO (/dev/stdout) is written through. `out` must
// not be `in`. A line that is not one JSON object, or longer than
// `max_line_bytes` (the loader's cap), refuses the dump (kCorruptInput,
// naming the line) and nothing is written; only the last line of an input
// cut short may be cut, and it is dropped.
Result<RedactionStats> redact_dump(const std::string& in, const std::string& out, const SipKey& key,
                                   std::size_t max_line_bytes = std::size_t{64} << 20);

}  // namespace heapleak
