#include "core/base/object_type.h"

#include <array>

namespace heapleak {
namespace {

struct TypeName {
  ObjectType type;
  std::string_view name;
};

constexpr std::array kTypeNames{
    TypeName{ObjectType::kUnknown, "UNKNOWN"}, TypeName{ObjectType::kObject, "OBJECT"},
    TypeName{ObjectType::kString, "STRING"},   TypeName{ObjectType::kArray, "ARRAY"},
    TypeName{ObjectType::kHash, "HASH"},       TypeName{ObjectType::kClass, "CLASS"},
    TypeName{ObjectType::kModule, "MODULE"},   TypeName{ObjectType::kIClass, "ICLASS"},
    TypeName{ObjectType::kSymbol, "SYMBOL"},   TypeName{ObjectType::kData, "DATA"},
    TypeName{ObjectType::kImemo, "IMEMO"},     TypeName{ObjectType::kStruct, "STRUCT"},
    TypeName{ObjectType::kRegexp, "REGEXP"},   TypeName{ObjectType::kFloat, "FLOAT"},
    TypeName{ObjectType::kBignum, "BIGNUM"},   TypeName{ObjectType::kRational, "RATIONAL"},
    TypeName{ObjectType::kComplex, "COMPLEX"}, TypeName{ObjectType::kFile, "FILE"},
    TypeName{ObjectType::kMatch, "MATCH"},     TypeName{ObjectType::kNode, "NODE"},
    TypeName{ObjectType::kZombie, "ZOMBIE"},   TypeName{ObjectType::kNone, "NONE"},
    TypeName{ObjectType::kMoved, "MOVED"},     TypeName{ObjectType::kNil, "NIL"},
    TypeName{ObjectType::kTrue, "TRUE"},       TypeName{ObjectType::kFalse, "FALSE"},
    TypeName{ObjectType::kFixnum, "FIXNUM"},   TypeName{ObjectType::kUndef, "UNDEF"},
};

}  // namespace

ObjectType parse_object_type(std::string_view name) {
  // The common types come first in the table, so a linear scan is short.
  for (const auto& entry : kTypeNames) {
    if (entry.name == name) return entry.type;
  }
  return ObjectType::kUnknown;
}

std::string_view object_type_name(ObjectType type) {
  for (const auto& entry : kTypeNames) {
    if (entry.type == type) return entry.name;
  }
  return "UNKNOWN";
}

bool is_class_like(ObjectType type) {
  return type == ObjectType::kClass || type == ObjectType::kModule || type == ObjectType::kIClass;
}

}  // namespace heapleak
