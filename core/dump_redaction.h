// `heapleak redact`: a dump copied with every string value redacted
// (core/string_redactor.h), streaming, plain or gzip in and out. The copy is
// written to a temporary beside the target (mode 0600) and renamed only once
// complete, so a full disk never leaves a file that looks redacted.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/siphash.h"

namespace heapleak {

struct RedactionStats {
  std::uint64_t lines = 0;
  std::uint64_t strings_redacted = 0;
  std::uint64_t bytes_in = 0;   // decompressed
  std::uint64_t bytes_out = 0;  // decompressed
  bool truncated = false;       // a gzip input cut short: what could be read was copied
};

// Writes `out` gzip-compressed (level 1) when its name ends in ".gz", plain
// otherwise. `out` must not be `in`.
Result<RedactionStats> redact_dump(const std::string& in, const std::string& out,
                                   const SipKey& key);

}  // namespace heapleak
