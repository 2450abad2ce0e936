// Parses one line of an ObjectSpace.dump_all dump into a DumpRecord, keeping
// only the fields heapleak uses. Tolerant of field order, spacing and unknown
// fields; strict about what makes a line unusable (not JSON, NUL bytes,
// invalid UTF-8, no address), which it reports as kBroken with a reason.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/base/address.h"
#include "core/base/object_type.h"
#include "core/reading/load_mode.h"

namespace heapleak {

enum class RecordKind { kObject, kRoot, kShape, kBlank, kBroken };

// Types whose growth is read from their reference count (they have no
// length): a Thread's locals, a class's constants, a Ractor's threads.
// Identity-only loads count the references of these types only.
bool counts_references(ObjectType type);

struct DumpRecord {
  RecordKind kind = RecordKind::kBroken;
  Address address = 0;
  ObjectType type = ObjectType::kUnknown;
  Address class_address = 0;  // 0: no `class` field
  std::vector<Address> references;
  // How many the record lists: references.size() but in identity-only loads,
  // which keep only the first (and count the rest only for the types
  // counts_references names).
  std::uint64_t reference_count = 0;
  std::uint64_t memsize = 0;
  // Views into the parser's memory, valid until the next parse() call.
  std::string_view own_name;  // CLASS/MODULE `name`, DATA `struct`, IMEMO `imemo_type`
  std::string_view root_name;
  std::string_view file;
  std::string_view method;
  std::uint64_t line = 0;
  std::uint64_t generation = 0;
  bool has_line = false;
  bool has_generation = false;
  std::uint32_t value_hash = 0;  // 0: no `value` field
  // An ARRAY's `length`, a HASH's `size` or a STRING's `bytesize`: how a
  // container or buffer grows from dump to dump.
  std::uint64_t length = 0;
  bool has_length = false;
  // Object shapes (Ruby 3.2+): an object's `shape_id` and `too_complex_shape`;
  // a SHAPE record's `id`, `parent_id`, `shape_type` and `edge_name` (the
  // ivar a shape adds). Read back on demand to name the ivar holding a
  // reference (core/heap/ivar_names.h); SHAPE records also fill the heap's table.
  std::uint64_t shape_id = 0;
  std::uint64_t shape_parent = 0;
  bool has_shape_id = false;
  bool has_shape_parent = false;
  bool too_complex_shape = false;
  std::string_view shape_type;
  std::string_view edge_name;
  const char* broken_reason = nullptr;

  void clear();
};

class RecordParser {
 public:
  // In identity-only mode an object keeps only its first reference
  // (enough for identity); the rest of the list is skipped unparsed.
  explicit RecordParser(LoadMode mode = LoadMode::kFull);
  ~RecordParser();
  RecordParser(const RecordParser&) = delete;
  RecordParser& operator=(const RecordParser&) = delete;

  // `capacity` is how many bytes starting at `line` may be read (at least
  // length + 64): simdjson reads ahead of the document's end.
  void parse(const char* line, std::size_t length, std::size_t capacity, DumpRecord& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool all_references_;  // LoadMode::kFull
};

// A 32-bit fingerprint of a JSON token, never 0 (0 means "absent").
std::uint32_t fingerprint(std::string_view token);

}  // namespace heapleak
