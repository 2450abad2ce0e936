// The small sections of a cache image: the key it was written for (the
// dump's path and identity, the load mode), the load report, the GC roots,
// and the gzip access points, encoded as plain little-endian fields. The big
// columns are sections of their own (core/images/heap_image_writer.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/file_identity.h"
#include "core/heap/heap.h"
#include "core/reading/gzip_index.h"
#include "core/reading/load_mode.h"

namespace heapleak::image {

// What an image answers for: a dump at `path` (canonical) with this identity
// and head/tail hash, loaded in `mode`.
struct ImageKey {
  std::string path;
  FileIdentity identity;
  std::uint64_t head_tail = 0;
  LoadMode mode = LoadMode::kFull;
};

std::string encode_meta(const ImageKey& key, const LoadReport& report,
                        const std::vector<RootCategory>& roots);
// False when the bytes do not decode (a foreign or damaged meta section).
bool decode_meta(std::string_view bytes, ImageKey& key, LoadReport& report,
                 std::vector<RootCategory>& roots);

std::string encode_gzip_index(const GzipIndex& index);
bool decode_gzip_index(std::string_view bytes, GzipIndex& index);

}  // namespace heapleak::image
