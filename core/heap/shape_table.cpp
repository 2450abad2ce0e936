#include "core/heap/shape_table.h"

namespace heapleak {

ShapeKind parse_shape_kind(std::string_view shape_type) {
  if (shape_type == "IVAR") return ShapeKind::kIvar;
  if (shape_type == "ROOT") return ShapeKind::kRoot;
  if (shape_type == "T_OBJECT") return ShapeKind::kObjectRoot;
  if (shape_type == "FROZEN") return ShapeKind::kFrozen;
  if (shape_type == "OBJ_TOO_COMPLEX") return ShapeKind::kTooComplex;
  if (shape_type == "OBJ_ID") return ShapeKind::kObjId;
  return ShapeKind::kOther;
}

bool ShapeTable::add(std::uint64_t id, std::uint64_t parent_id, bool has_parent, ShapeKind k,
                     std::uint32_t name) {
  if (id >= kMaxShapeId) return false;
  if (parent_id >= kMaxShapeId) has_parent = false;  // an invalid id: a chain's root
  if (id >= kind.size()) {
    parent.resize(id + 1, kNoShape);
    kind.resize(id + 1, ShapeKind::kAbsent);
    edge_name.resize(id + 1, 0);
  }
  parent[id] = has_parent ? static_cast<std::uint32_t>(parent_id) : kNoShape;
  kind[id] = k == ShapeKind::kAbsent ? ShapeKind::kOther : k;
  edge_name[id] = name;
  return true;
}

}  // namespace heapleak
