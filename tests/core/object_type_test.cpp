#include "core/base/object_type.h"

#include <catch2/catch.hpp>
#include <string>

using namespace heapleak;

TEST_CASE("every type name parses back to its type, anything else is unknown", "[object_type]") {
  for (int k = 1; k <= static_cast<int>(ObjectType::kUndef); ++k) {
    const auto type = static_cast<ObjectType>(k);
    const std::string name(object_type_name(type));
    INFO(name);
    CHECK(parse_object_type(name) == type);
    // One byte short, one too many, another case: none is a type.
    CHECK(parse_object_type(name.substr(0, name.size() - 1)) != type);
    CHECK(parse_object_type(name + "S") == ObjectType::kUnknown);
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(c - 'A' + 'a');
    CHECK(parse_object_type(lower) == ObjectType::kUnknown);
  }
  for (const char* junk : {"", "RATIONALS", "STRING\\0", "NEWFANGLED", "\xff\xfe"})
    CHECK(parse_object_type(junk) == ObjectType::kUnknown);
  // A NUL byte inside is part of the name, not its end.
  CHECK(parse_object_type(std::string("HASH\0\0", 6)) == ObjectType::kUnknown);
}
