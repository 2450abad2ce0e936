#include "core/naming.h"

namespace heapleak {
namespace {

std::string anonymous(const Heap& heap, ObjectIndex klass) {
  const char* kind = heap.type(klass) == ObjectType::kModule ? "#<Module:" : "#<Class:";
  return kind + format_address(heap.address(klass)) + ">";
}

// Singleton classes of singleton classes are rare; three levels is plenty.
std::string class_name_at(const Heap& heap, ObjectIndex klass, int depth);

// The class's own name for a class; `#<Foo:0x...>` for a plain object, Foo
// being the singleton's superclass (Ruby writes it as the first reference).
std::string attached_name(const Heap& heap, ObjectIndex singleton, ObjectIndex object, int depth) {
  const ObjectType type = heap.type(object);
  if (type == ObjectType::kClass || type == ObjectType::kModule)
    return class_name_at(heap, object, depth + 1);
  std::string of(object_type_name(type));
  const auto refs = heap.references(singleton);
  if (!refs.empty() && refs.front() != singleton && heap.type(refs.front()) == ObjectType::kClass)
    of = class_name_at(heap, refs.front(), depth + 1);
  return "#<" + of + ":" + format_address(heap.address(object)) + ">";
}

std::string class_name_at(const Heap& heap, ObjectIndex klass, int depth) {
  if (klass == kNoObject) return "";
  const std::string_view own = heap.own_name(klass);
  if (!own.empty()) return std::string(own);
  if (heap.type(klass) != ObjectType::kClass || depth >= 3) return anonymous(heap, klass);
  // A singleton class references the object it is attached to, whose class
  // it is; an anonymous class does not reference its instances.
  for (ObjectIndex target : heap.references(klass)) {
    if (target != klass && heap.class_index(target) == klass)
      return "#<Class:" + attached_name(heap, klass, target, depth) + ">";
  }
  return anonymous(heap, klass);
}

}  // namespace

std::string ruby_class_name(const Heap& heap, ObjectIndex klass) {
  return class_name_at(heap, klass, 0);
}

std::string ruby_name(const Heap& heap, ObjectIndex i) {
  const ObjectType type = heap.type(i);
  switch (type) {
    case ObjectType::kClass:
    case ObjectType::kModule:
      return ruby_class_name(heap, i);
    case ObjectType::kImemo: {
      const std::string_view own = heap.own_name(i);
      return own.empty() ? "IMEMO" : "IMEMO:" + std::string(own);
    }
    case ObjectType::kData: {
      const ObjectIndex klass = heap.class_index(i);
      if (klass != kNoObject && !heap.own_name(klass).empty())
        return std::string(heap.own_name(klass));
      const std::string_view own = heap.own_name(i);
      return own.empty() ? "DATA" : "DATA:" + std::string(own);
    }
    default: {
      const ObjectIndex klass = heap.class_index(i);
      if (klass == kNoObject) return std::string(object_type_name(type));
      return ruby_class_name(heap, klass);
    }
  }
}

bool is_vm_internal(const Heap& heap, ObjectIndex i) {
  switch (heap.type(i)) {
    case ObjectType::kImemo:
    case ObjectType::kIClass:
    case ObjectType::kNode:
    case ObjectType::kZombie:
      return true;
    case ObjectType::kData: {
      // A Ractor is the VM's own container of threads, not program state.
      const ObjectIndex klass = heap.class_index(i);
      return klass == kNoObject || heap.own_name(klass).empty() || heap.own_name(klass) == "Ractor";
    }
    case ObjectType::kClass:
    case ObjectType::kModule:
      return false;
    default:
      return heap.class_index(i) == kNoObject;  // hidden: no class
  }
}

}  // namespace heapleak
