#include "core/heap/object_key.h"

#include <unordered_map>

namespace heapleak {
namespace {

// What object_key(i) depends on, packed: the type and, by type, its class or
// its own name (bit 32 set), so equal packs have equal keys.
std::uint64_t key_pack(const Heap& heap, ObjectIndex i) {
  const ObjectType type = heap.type(i);
  const std::uint64_t by_type = std::uint64_t{static_cast<std::uint8_t>(type)} << 40;
  switch (type) {
    case ObjectType::kObject:
      return by_type | heap.class_index(i);
    case ObjectType::kStruct:
    case ObjectType::kData:
      if (!heap.class_name(i).empty()) return by_type | heap.class_index(i);
      [[fallthrough]];
    case ObjectType::kClass:
    case ObjectType::kModule:
    case ObjectType::kImemo:
      return by_type | (std::uint64_t{1} << 32) | heap.columns().own_name[i];
    default:
      return by_type;
  }
}

}  // namespace

ObjectKeys object_keys(const Heap& heap) {
  ObjectKeys out;
  out.of = Column<std::uint32_t>(heap.size(), 0);
  std::unordered_map<std::uint64_t, std::uint32_t> by_pack;
  std::unordered_map<std::string, std::uint32_t> by_name;  // packs that share a key ("STRUCT")
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    auto [it, inserted] = by_pack.try_emplace(key_pack(heap, i), 0);
    if (inserted) {
      auto [named, is_new] =
          by_name.try_emplace(object_key(heap, i), static_cast<std::uint32_t>(out.names.size()));
      if (is_new) out.names.push_back(named->first);
      it->second = named->second;
    }
    out.of[i] = it->second;
  }
  return out;
}

std::optional<GroupBy> parse_group_by(std::string_view name) {
  if (name == "class" || name == "type") return GroupBy::kClass;
  if (name == "site" || name == "file") return GroupBy::kSite;
  if (name == "generation" || name == "gen") return GroupBy::kGeneration;
  return std::nullopt;
}

std::string_view group_by_name(GroupBy group_by) {
  switch (group_by) {
    case GroupBy::kClass:
      return "class";
    case GroupBy::kSite:
      return "site";
    case GroupBy::kGeneration:
      return "generation";
  }
  return "class";
}

std::string class_display_name(const Heap& heap, ObjectIndex i) {
  const ObjectIndex klass = heap.class_index(i);
  if (klass == kNoObject) return "";
  const std::string_view name = heap.own_name(klass);
  if (!name.empty()) return std::string(name);
  return "#<Class:" + format_address(heap.address(klass)) + ">";
}

std::string object_key(const Heap& heap, ObjectIndex i) {
  const ObjectType type = heap.type(i);
  const std::string_view own = heap.own_name(i);
  switch (type) {
    case ObjectType::kObject: {
      std::string name = class_display_name(heap, i);
      return name.empty() ? "OBJECT" : name;
    }
    case ObjectType::kClass:
      return "CLASS:" + (own.empty() ? std::string("(anonymous)") : std::string(own));
    case ObjectType::kModule:
      return "MODULE:" + (own.empty() ? std::string("(anonymous)") : std::string(own));
    case ObjectType::kStruct:
    case ObjectType::kData: {
      // A Struct or typed DATA with a named class groups under that Ruby
      // class (PriceCalculator::Quote, StringIO, Proc, Thread), not STRUCT
      // or DATA:strio.
      const std::string_view klass = heap.class_name(i);
      if (!klass.empty()) return std::string(klass);
      if (type == ObjectType::kStruct) return "STRUCT";
      if (!own.empty()) return "DATA:" + std::string(own);
      return "DATA";
    }
    case ObjectType::kImemo:
      if (!own.empty()) return std::string(object_type_name(type)) + ":" + std::string(own);
      return std::string(object_type_name(type));
    default:
      return std::string(object_type_name(type));
  }
}

std::string allocation_site(const Heap& heap, ObjectIndex i) {
  const std::string_view file = heap.file(i);
  if (file.empty()) return "";
  return std::string(file) + ":" + std::to_string(heap.line(i));
}

std::string group_key(const Heap& heap, ObjectIndex i, GroupBy group_by) {
  switch (group_by) {
    case GroupBy::kClass:
      return object_key(heap, i);
    case GroupBy::kSite: {
      std::string site = allocation_site(heap, i);
      return site.empty() ? "(no allocation site)" : site;
    }
    case GroupBy::kGeneration: {
      auto generation = heap.generation(i);
      return generation ? "generation " + std::to_string(*generation) : "(no generation)";
    }
  }
  return "";
}

}  // namespace heapleak
