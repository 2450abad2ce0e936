// libFuzzer target: open_byte_source + read() on arbitrary file bytes (the
// corpus holds real gzip files; libFuzzer mutates headers, bodies, CRCs and
// trailers). Byte 0 picks the read size. Decompression stops after 16 MiB so
// a small gzip bomb costs time, not memory. Errors must carry a message.
#include <cstdint>
#include <vector>

#include "core/reading/byte_source.h"
#include "fuzz_check.h"
#include "memfd_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static constexpr std::size_t kChunks[] = {1, 7, 4096, 1 << 20};
  const std::size_t chunk = kChunks[data[0] & 3];
  MemfdFile file(data + 1, size - 1);
  auto source = heapleak::open_byte_source(file.path());
  if (!source) {
    FUZZ_CHECK(!(source.error().message.empty()), "source.error().message.empty()");
    return 0;
  }
  std::vector<char> out(chunk);
  std::uint64_t total = 0;
  while (total < (std::uint64_t{16} << 20)) {
    auto n = (*source)->read(out.data(), out.size());
    if (!n) {
      FUZZ_CHECK(!(n.error().message.empty()), "n.error().message.empty()");
      break;
    }
    FUZZ_CHECK(!(*n > out.size()), "*n > out.size()");
    if (*n == 0) break;
    total += *n;
    FUZZ_CHECK(!((*source)->file_bytes_consumed() > (*source)->file_size()),
               "(*source)->file_bytes_consumed() > (*source)->file_size()");
  }
  return 0;
}
