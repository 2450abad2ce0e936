// The `type` field of a dump record, as a one-byte enum. Unknown type names
// map to kUnknown rather than failing: new Ruby versions add types.
#pragma once

#include <cstdint>
#include <string_view>

namespace heapleak {

enum class ObjectType : std::uint8_t {
  kUnknown = 0,
  kObject,
  kString,
  kArray,
  kHash,
  kClass,
  kModule,
  kIClass,
  kSymbol,
  kData,
  kImemo,
  kStruct,
  kRegexp,
  kFloat,
  kBignum,
  kRational,
  kComplex,
  kFile,
  kMatch,
  kNode,
  kZombie,
  kNone,
  kMoved,
  kNil,
  kTrue,
  kFalse,
  kFixnum,
  kUndef,
};

ObjectType parse_object_type(std::string_view name);

// The dump's own spelling ("OBJECT", "STRING", ...); "UNKNOWN" for kUnknown.
std::string_view object_type_name(ObjectType type);

// CLASS, MODULE and ICLASS records carry names and are the targets of `class`.
bool is_class_like(ObjectType type);

}  // namespace heapleak
