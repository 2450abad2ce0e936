// The dump's object shapes (SHAPE records, Ruby 3.2+): for each shape id its
// parent, the kind of transition and, for an ivar, the ivar's name. Walking
// an object's shape up to the root gives its ivars in index order, which is
// how core/heap/ivar_names.h names the ivar holding a reference. A few thousand
// shapes in a real app: 9 bytes each, ids are dense from 0.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace heapleak {

// ROOT, T_OBJECT (3.2-3.4's per-size roots), IVAR, FROZEN, OBJ_TOO_COMPLEX
// and OBJ_ID by name; CAPACITY_CHANGE, INITIAL_CAPACITY and unknown kinds add
// no slot (kOther). A chain ends at ROOT or T_OBJECT, whatever their
// `parent_id` says (3.4 writes 65535, the 16-bit invalid id, on wasm).
enum class ShapeKind : std::uint8_t {
  kAbsent,
  kRoot,
  kObjectRoot,
  kIvar,
  kFrozen,
  kTooComplex,
  kObjId,
  kOther
};

ShapeKind parse_shape_kind(std::string_view shape_type);

struct ShapeTable {
  static constexpr std::uint32_t kNoShape = UINT32_MAX;
  // Shape ids past this are not kept: a corrupt record must not make the
  // table big (9 MiB at most; real dumps have thousands of shapes).
  static constexpr std::uint64_t kMaxShapeId = 1u << 20;

  std::vector<std::uint32_t> parent;     // by shape id; kNoShape for the root
  std::vector<ShapeKind> kind;           // kAbsent: no SHAPE record had this id
  std::vector<std::uint32_t> edge_name;  // interned in the heap's StringPool; 0 = none

  // False when the id is out of range (the record is ignored).
  bool add(std::uint64_t id, std::uint64_t parent_id, bool has_parent, ShapeKind kind,
           std::uint32_t edge_name);
  bool has(std::uint64_t id) const { return id < kind.size() && kind[id] != ShapeKind::kAbsent; }
  bool empty() const { return kind.empty(); }
  std::size_t bytes_used() const {
    return parent.size() * sizeof(std::uint32_t) + kind.size() + edge_name.size() * 4;
  }
};

}  // namespace heapleak
