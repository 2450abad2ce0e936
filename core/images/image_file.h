// The container both cache files share (core/images/heap_image_format.h): writing
// named sections behind a header and a checksummed table to a temporary file
// renamed into place, and mapping such a file read-only and checking its
// head (magic, version, layout, size, table checksum) before anything in it
// is read. What the sections mean is the caller's (heap images, analyses).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/images/heap_image_format.h"

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

// Checks the values in bytes [begin, end) of a section's payload `section`
// (the whole payload is readable; a check may look back or elsewhere): false
// when one is out of range. A checksum only proves the bytes are what some
// writer wrote, and anyone who may write the cache directory can recompute
// it, so every value a reader indexes with is checked too.
using ValueCheck = std::function<bool(const char* section, std::uint64_t begin, std::uint64_t end)>;
using ValueChecks = std::vector<std::pair<std::string_view, ValueCheck>>;

// The first section found damaged: its checksum does not match, or
// (`values`) one of its values failed its check.
struct Damage {
  const Section* section = nullptr;
  bool values = false;
  explicit operator bool() const { return section != nullptr; }
  std::string why() const;
};

struct MappedFile {
  FileProblem problem = FileProblem::kMissing;
  std::string why;  // for people, when problem is not kNone
  std::shared_ptr<Mapping> mapping;
  Header header{};
  std::vector<Section> table;

  const Section* find(std::string_view name) const;
  // Whether the payload of `s` still has the checksum the table says.
  bool intact(const Section& s) const;
  // Checks every section but `skip` (one already checked), and the values
  // of those `checks` names, in the same pass as the hashing (chunk by chunk,
  // while the bytes are in the CPU's cache); the first found damaged, or
  // none. The pages are mapped in one call first, and two threads share the
  // work (see image_file.cpp).
  Damage first_damaged(const Section* skip = nullptr, const ValueChecks& checks = {}) const;
};

// Maps `path` and checks its head; the sections' payloads are not read. A
// path that is not a regular file (a FIFO, a device) is refused as damaged
// without blocking: it is opened non-blocking and its type checked first.
MappedFile map_image_file(const std::string& path, const char (&magic)[8], std::uint32_t version);

}  // namespace heapleak::image
