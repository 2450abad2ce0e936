// Human byte sizes on the command line (`--max-leaked-bytes 5MiB`): a number,
// decimals allowed, then an optional unit: B; KiB, MiB, GiB, TiB and their
// short forms K, M, G, T (powers of 1024, as heapleak prints sizes); kB, MB,
// GB, TB (powers of 1000). Case-insensitive but for the SI/IEC distinction.
#pragma once

#include <cstdint>
#include <string>

namespace heapleak::cli {

// Throws UsageError naming `flag` when `text` is not a size or overflows.
std::uint64_t parse_byte_size(const std::string& flag, const std::string& text);

}  // namespace heapleak::cli
