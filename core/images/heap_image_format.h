// The on-disk layout of a cache image (one parsed heap): a 64-byte header,
// a table of named sections (offset, length, XXH64), then the sections, each
// 64-byte aligned. Little-endian, native struct layout: an image is read only
// on the kind of machine that wrote it, and the header says which layout.
#pragma once

#include <cstdint>

namespace heapleak::image {

inline constexpr char kMagic[8] = {'H', 'L', 'I', 'M', 'A', 'G', 'E', '\n'};
inline constexpr std::uint64_t kAlign = 64;
inline constexpr std::uint32_t kMaxSections = 64;

struct Header {
  char magic[8];
  std::uint32_t format_version;  // kHeapImageVersion (core/heap/heap.h) of the writer
  std::uint32_t section_count;
  std::uint64_t image_bytes;     // the whole file: shorter is truncated
  std::uint64_t table_checksum;  // XXH64 of this header (with this field 0) and the table
  std::uint32_t load_mode;       // LoadMode of the load that built it
  std::uint32_t layout;          // kLayout: sizeof checks of the writer's structs
  std::uint8_t reserved[24];
};
static_assert(sizeof(Header) == 64);

struct Section {
  char name[32];  // NUL-padded; a column's name in for_each_column, or meta/names.*/gzip_index
  std::uint64_t offset;
  std::uint64_t bytes;
  std::uint64_t checksum;  // XXH64 of the payload
  std::uint64_t reserved;
};
static_assert(sizeof(Section) == 64);

inline constexpr std::uint32_t kLayout =
    (sizeof(Header) << 16) | (sizeof(Section) << 8) | sizeof(void*);

}  // namespace heapleak::image
