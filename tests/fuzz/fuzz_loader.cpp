// libFuzzer target: load_heap on a whole file. Byte 0 picks the variant:
// bit 0 gzip-compresses the rest first, bit 1 identity-only (no edges),
// bits 2-3 the block size (tiny blocks force line-spanning and block growth),
// bit 4 loads a plain file again split in two halves at once, which must
// give what the one pass gave (the same error, or the same heap).
// The loader must return a heap or an error, never crash or hang.
#include <zlib.h>

#include <cstdint>
#include <string>

#include "core/loading/loader.h"
#include "fuzz_check.h"
#include "memfd_file.h"

namespace {

std::string gzip(const std::uint8_t* data, std::size_t size) {
  z_stream stream{};
  FUZZ_CHECK(!(deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK),
             "deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK");
  std::string out(deflateBound(&stream, size) + 32, '\0');
  stream.next_in = const_cast<Bytef*>(data);
  stream.avail_in = static_cast<uInt>(size);
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  FUZZ_CHECK(!(deflate(&stream, Z_FINISH) != Z_STREAM_END),
             "deflate(&stream, Z_FINISH) != Z_STREAM_END");
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > (1 << 20)) return 0;
  const std::uint8_t flags = data[0];
  ++data;
  --size;
  std::string bytes =
      (flags & 1) ? gzip(data, size) : std::string(reinterpret_cast<const char*>(data), size);
  MemfdFile file(bytes.data(), bytes.size());

  heapleak::LoadOptions options;
  options.mode = (flags & 2) == 0 ? heapleak::LoadMode::kFull : heapleak::LoadMode::kIdentityOnly;
  static constexpr std::size_t kBlocks[] = {16, 256, 4096, std::size_t{4} << 20};
  options.block_size = kBlocks[(flags >> 2) & 3];
  std::uint64_t last_done = 0;
  heapleak::LoadControl control;
  control.progress = [&](std::uint64_t done, std::uint64_t total) {
    FUZZ_CHECK(!(done < last_done || done > total), "progress runs forward, within the file");
    last_done = done;
  };
  auto heap = heapleak::load_heap(file.path(), options, control);
  if (!heap) {
    FUZZ_CHECK(!(heap.error().message.empty()), "heap.error().message.empty()");
  } else if (!*heap) {
    FUZZ_CHECK(false, "load_heap returned a null heap without an error");
  }
  if (flags & 16) {
    options.split_from_bytes = 0;
    last_done = 0;
    auto split = heapleak::load_heap(file.path(), options, control);
    FUZZ_CHECK(bool(split) == bool(heap), "a split load and one pass disagree on success");
    if (!heap) {
      FUZZ_CHECK(split.error().reason == heap.error().reason &&
                     split.error().message == heap.error().message,
                 "a split load and one pass fail differently");
    } else {
      const heapleak::Heap& one = **heap;
      const heapleak::Heap& two = **split;
      const heapleak::LoadReport& x = one.report();
      const heapleak::LoadReport& y = two.report();
      FUZZ_CHECK(one.size() == two.size() && x.lines == y.lines &&
                     x.broken_lines == y.broken_lines &&
                     x.first_broken_lines == y.first_broken_lines && x.long_lines == y.long_lines &&
                     x.root_records == y.root_records && x.shapes == y.shapes &&
                     x.duplicate_addresses == y.duplicate_addresses &&
                     x.missing_references == y.missing_references && x.references == y.references &&
                     x.stream_bytes == y.stream_bytes && x.ends_mid_line == y.ends_mid_line &&
                     x.traced == y.traced && one.bytes_used() == two.bytes_used(),
                 "a split load and one pass count differently");
      for (heapleak::ObjectIndex i = 0; i < one.size(); ++i) {
        FUZZ_CHECK(one.address(i) == two.address(i) && one.type(i) == two.type(i) &&
                       one.class_index(i) == two.class_index(i) &&
                       one.own_name(i) == two.own_name(i) && one.file(i) == two.file(i) &&
                       one.line(i) == two.line(i) && one.method(i) == two.method(i) &&
                       one.memsize(i) == two.memsize(i) && one.value_hash(i) == two.value_hash(i),
                   "a split load and one pass build different objects");
      }
    }
  }
  return 0;
}
