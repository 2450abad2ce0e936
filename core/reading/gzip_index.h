// Random access into a gzip dump (zlib's zran technique): while the loader
// inflates, it saves an access point every few MiB of output at a deflate
// block boundary (input position, bit offset, the 32 KiB window). Reading one
// record back then inflates at most that much instead of the whole prefix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/error.h"

namespace heapleak {

struct GzipAccessPoint {
  std::uint64_t out = 0;  // offset in the decompressed stream
  std::uint64_t in = 0;   // offset in the file of the first full byte to read
  int bits = 0;           // bits of the byte before `in` still to feed
  std::vector<unsigned char> window;
};

struct GzipIndex {
  static constexpr std::uint64_t kSpacing = std::uint64_t{4} << 20;
  std::vector<GzipAccessPoint> points;  // ascending `out`

  std::size_t bytes_used() const;
};

// The line of the decompressed stream that starts at `offset`, without its
// newline, read through the nearest access point. An error when the point
// cannot be used (the caller then inflates from the start).
Result<std::string> read_gzip_line(const std::string& path, const GzipIndex& index,
                                   std::uint64_t offset, std::size_t max_bytes);

}  // namespace heapleak
