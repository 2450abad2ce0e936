// Writes a parsed heap as a cache image (layout: core/images/heap_image_format.h):
// every column of for_each_column, the string pool, the roots, the load
// report and the gzip access points. The image is written to a temporary
// file next to `image_path` and renamed into place, so a reader sees the old
// image, the new one or none, never half of one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/heap/heap.h"
#include "core/images/heap_image_meta.h"

namespace heapleak::image {

// Nothing on success, else why not (the temporary file is removed). On
// success `table_checksum` (when given) receives the header's checksum, which
// names this image's exact content (core/images/analyses_image.h binds to it).
std::optional<std::string> write_heap_image(const Heap& heap, const ImageKey& key,
                                            const std::string& image_path,
                                            std::uint64_t* table_checksum = nullptr);

}  // namespace heapleak::image
