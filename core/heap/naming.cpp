#include "core/heap/naming.h"

#include <algorithm>

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
  // Ruby 3.1 writes an anonymous class's temporary path as its name
  // (`#<Class:0x0000...>`): not a name, so a singleton class is still told.
  if (!own.empty() && !is_address_name(own)) return std::string(own);
  const auto unnamed = [&] { return own.empty() ? anonymous(heap, klass) : std::string(own); };
  if (heap.type(klass) != ObjectType::kClass || depth >= 3) return unnamed();
  // A singleton class references the object it is attached to, whose class
  // it is; an anonymous class does not reference its instances.
  for (ObjectIndex target : heap.references(klass)) {
    if (target != klass && heap.class_index(target) == klass)
      return "#<Class:" + attached_name(heap, klass, target, depth) + ">";
  }
  return unnamed();
}

}  // namespace

bool is_address_name(std::string_view name) {
  return name.starts_with("#<Class:0x") || name.starts_with("#<Module:0x");
}

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

ObjectIndex fields_owner(const Heap& heap, ObjectIndex i) {
  if (!is_fields_object(heap, i) || !heap.has_edges()) return kNoObject;
  ObjectIndex owner = kNoObject;
  for (ObjectIndex r : heap.referrers(i)) {
    if (r == i || is_vm_internal(heap, r)) continue;
    if (heap.type(r) == ObjectType::kClass || heap.type(r) == ObjectType::kModule) return r;
    if (owner == kNoObject) owner = r;
  }
  return owner;
}

ObjectIndex fold_fields(const Heap& heap, ObjectIndex i) {
  const ObjectIndex owner = fields_owner(heap, i);
  return owner == kNoObject ? i : owner;
}

std::uint64_t folded_memsize(const Heap& heap, ObjectIndex i) {
  std::uint64_t total = heap.memsize(i);
  if (!heap.has_edges() || is_vm_internal(heap, i)) return total;
  for (ObjectIndex f : heap.references(i)) {
    if (is_fields_object(heap, f) && fields_owner(heap, f) == i) total += heap.memsize(f);
  }
  return total;
}

RootKind root_kind(std::string_view category) {
  // Categories of Ruby 2.1-4.0's gc.c (rb_objspace_reachable_objects_from_root).
  if (category == "global_tbl" || category == "global_list") return RootKind::kGlobal;
  if (category == "finalizers" || category == "finalizer_table") return RootKind::kFinalizer;
  if (category == "machine_context") return RootKind::kMachineStack;
  if (category == "vm") return RootKind::kVm;
  return RootKind::kOther;
}

std::string root_label(std::string_view category) {
  std::string label = "ROOT " + std::string(category);
  if (category == "end_proc") label += " (at_exit blocks)";
  return label;
}

std::vector<EdgeName> path_vias(const Heap& heap, const std::vector<ObjectIndex>& path,
                                EdgeNameMemo* memo) {
  std::vector<EdgeName> vias(path.size());
  if (heap.shapes().empty()) return vias;  // before Ruby 3.2: nothing to name
  for (std::size_t k = 1; k < path.size(); ++k) {
    if (!memo) {
      vias[k] = ivar_holding(heap, path[k - 1], path[k]);
      continue;
    }
    const std::uint64_t key = (std::uint64_t{path[k - 1]} << 32) | path[k];
    auto it = memo->find(key);
    if (it == memo->end()) it = memo->emplace(key, ivar_holding(heap, path[k - 1], path[k])).first;
    vias[k] = it->second;
  }
  return vias;
}

std::vector<std::string> path_names(const Heap& heap, std::string_view root,
                                    const std::vector<ObjectIndex>& path,
                                    const std::vector<EdgeName>& vias) {
  std::vector<std::string> names;
  if (!root.empty()) names.push_back(root_label(root));
  for (std::size_t k = 0; k < path.size(); ++k) {
    std::string name = ruby_name(heap, path[k]);
    if (k + 1 < vias.size()) name += edge_suffix(vias[k + 1]);
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace heapleak
