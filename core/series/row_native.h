// What of a leak row's bytes lives outside Ruby's slots as C memory: its DATA
// objects (C extension state: Zlib streams, parsers, connections) and what
// their memsize says they own, and those whose memsize is their slot alone
// (a type with no dsize function), for which the figure under-counts.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/heap/heap.h"

namespace heapleak {

// A DATA object's slot on 64-bit Rubies (RTypedData: 40 bytes in every
// version); memsize above it is what the type's dsize reports it owns.
inline constexpr std::uint32_t kDataSlotBytes = 40;

// DATA classes whose dsize counts their C struct but not the memory it points
// to: zlib's streams (ext/zlib's zstream_memsize: "this does not track memory
// managed via zalloc/zfree", ~256 KiB of deflate state a stream).
inline constexpr const char* kUndercountingClasses[] = {"Zlib::Deflate", "Zlib::Inflate",
                                                        "Zlib::GzipWriter", "Zlib::GzipReader"};

struct RowNative {
  std::uint64_t data_objects = 0;  // DATA objects among the row's
  std::uint64_t native_bytes = 0;  // their memsize less a slot each
  // DATA objects whose memsize is known to under-count: their slot alone (no
  // dsize function), or a class whose dsize leaves out what it mallocs
  // (kUndercountingClasses); what they hold is not counted in the dump.
  std::uint64_t undercounted = 0;
  // The DATA class likeliest to hold C memory ("Zlib::Deflate", or a C
  // struct's name): the most under-counted objects, else the most bytes.
  std::string top_class;
  std::uint64_t top_count = 0;
};

RowNative row_native(const Heap& heap, std::span<const ObjectIndex> objects);

}  // namespace heapleak
