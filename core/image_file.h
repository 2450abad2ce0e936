// The container both cache files share (core/heap_image_format.h): writing
// named sections behind a header and a checksummed table to a temporary file
// renamed into place, and mapping such a file read-only and checking its
// head (magic, version, layout, size, table checksum) before anything in it
// is read. What the sections mean is the caller's (heap images, analyses).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/heap_image_format.h"

namespace heapleak::image {

// One section to write: `bytes` at `data`, kept alive by the caller.
struct Part {
  const char* name;
  const void* data;
  std::uint64_t bytes;
};

struct Written {
  std::optional<std::string> error;  // why not (the temporary file is then removed)
  std::uint64_t table_checksum = 0;  // the header's checksum: names this exact file's content
};

// Writes `parts` under `magic` and `version` to `path` (temp file + rename).
Written write_image_file(const std::string& path, const char (&magic)[8], std::uint32_t version,
                         std::uint32_t load_mode, const std::vector<Part>& parts);

// A whole file mapped read-only; unmapped when the last view goes.
struct Mapping {
  void* base = nullptr;
  std::size_t bytes = 0;
  ~Mapping();
  const char* at(std::uint64_t offset) const { return static_cast<const char*>(base) + offset; }
};

enum class FileProblem { kNone, kMissing, kVersion, kTruncated, kCorrupt };

struct MappedFile {
  FileProblem problem = FileProblem::kMissing;
  std::string why;  // for people, when problem is not kNone
  std::shared_ptr<Mapping> mapping;
  Header header{};
  std::vector<Section> table;

  const Section* find(std::string_view name) const;
  // Whether the payload of `s` still has the checksum the table says.
  bool intact(const Section& s) const;
  // Checks every section but `skip` (one already checked); the first found
  // damaged, or nullptr. The pages are mapped in one call first, and two
  // threads share the hashing (see image_file.cpp).
  const Section* first_damaged(const Section* skip = nullptr) const;
};

// Maps `path` and checks its head; the sections' payloads are not read.
MappedFile map_image_file(const std::string& path, const char (&magic)[8], std::uint32_t version);

}  // namespace heapleak::image
