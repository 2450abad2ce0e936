// Opens a cache image as a Heap without parsing or copying: the file is
// mapped read-only and every column and the string pool view the mapping
// (the pages come from the page cache or disk, and are shared by every
// process that maps the image). The image is checked before it is trusted:
// magic, format version and struct layout, the section table's checksum, the
// key (the dump is the same file, unchanged, and the load mode fits), and the
// XXH64 of every section's payload.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/heap/heap.h"
#include "core/images/heap_image_meta.h"
#include "core/images/image_file.h"

namespace heapleak::image {

enum class ImageProblem {
  kNone,       // opened
  kMissing,    // no image at that path
  kWrongMode,  // an identity-only image, a full load wanted: not used, kept
  kStale,      // written for another file or an earlier version of the dump
  kVersion,    // written by another image format version or struct layout
  kTruncated,  // shorter than its header says
  kCorrupt,    // bad magic, checksum or structure
};

// The container's problem (core/images/image_file.h) in this header's words.
ImageProblem image_problem(FileProblem problem);

struct OpenedImage {
  std::shared_ptr<const Heap> heap;  // set when problem == kNone
  ImageProblem problem = ImageProblem::kMissing;
  std::string why;                   // for people, when problem is not kNone
  std::uint64_t table_checksum = 0;  // the header's: names the image's exact content
};

// `expected` is the dump as it is now; a full image serves an identity-only
// load, not the reverse. The heap's report carries the image's load report
// (path and cache fields are the caller's to set).
// `finish` completes the report before the heap is made (the caller's path,
// cache use and timing); it also gets the image's table checksum, which the
// analyses kept next to the image are bound to (core/images/analyses_image.h), and
// its count of root categories, which they index.
// Every value the heap's accessors index with (string ids, object indexes,
// CSR offsets, types) is checked in the pass that checks the checksums: a
// checksum is no key, and an image that anyone could have written must not
// make a reader go out of bounds.
OpenedImage open_heap_image(const std::string& image_path, const ImageKey& expected,
                            const std::function<void(LoadReport&, std::uint64_t table_checksum,
                                                     std::size_t root_categories)>& finish = {});

// What `cache list` shows: the key and counts from the header and meta
// section only (checked by their checksums, the payload is not read).
struct ImageSummary {
  ImageKey key;
  std::uint64_t objects = 0;
  std::uint64_t image_bytes = 0;
  std::uint64_t table_checksum = 0;
};
std::optional<ImageSummary> peek_heap_image(const std::string& image_path);

}  // namespace heapleak::image
