// How objects are grouped for people: the seed's type/class keys (OBJECT,
// STRUCT and typed DATA with a named class -> the class name, CLASS:Name,
// MODULE:Name, DATA:struct, IMEMO:kind, the dump type otherwise), allocation
// sites and generations. Readable names of single objects: core/heap/naming.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/column.h"
#include "core/heap/heap.h"

namespace heapleak {

enum class GroupBy { kClass, kSite, kGeneration };

std::optional<GroupBy> parse_group_by(std::string_view name);
std::string_view group_by_name(GroupBy group_by);

// The seed's key: what `stats` groups by by default.
std::string object_key(const Heap& heap, ObjectIndex i);
// Every object's object_key, as an index into `names` (in first-seen order).
// Each distinct key is built once, not once per object: what a key depends
// on (the type and the class or own name) is hashed instead.
struct ObjectKeys {
  std::vector<std::string> names;
  Column<std::uint32_t> of;  // per object
};
ObjectKeys object_keys(const Heap& heap);

// The Ruby class name, "#<Class:0x...>" for an anonymous class, "" when unknown.
std::string class_display_name(const Heap& heap, ObjectIndex i);
// "file:line", or "" without allocation tracing.
std::string allocation_site(const Heap& heap, ObjectIndex i);
std::string group_key(const Heap& heap, ObjectIndex i, GroupBy group_by);

}  // namespace heapleak
