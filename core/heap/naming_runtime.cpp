#include "core/heap/naming_runtime.h"

#include "core/base/address.h"
#include "core/heap/naming.h"
#include "core/heap/record_reader.h"
#include "core/heap/record_refs.h"

namespace heapleak {
namespace {

// The object a record's `"field":"0x..."` names, if it is in the heap.
ObjectIndex field_object(const Heap& heap, ObjectIndex i, std::string_view field) {
  auto text = read_record_text(heap, i);
  if (!text) return kNoObject;
  const std::string key = "\"" + std::string(field) + "\":\"";
  const std::size_t at = text.value().find(key);
  if (at == std::string::npos) return kNoObject;
  const std::size_t begin = at + key.size();
  const std::size_t end = text.value().find('"', begin);
  if (end == std::string::npos) return kNoObject;
  auto address = parse_address(std::string_view(text.value()).substr(begin, end - begin));
  if (!address) return kNoObject;
  auto j = heap.find(*address);
  return j ? *j : kNoObject;
}

bool is_singleton(const Heap& heap, ObjectIndex klass) {
  // Ruby names a singleton class after the object it is attached to.
  return ruby_class_name(heap, klass).starts_with("#<Class:#<");
}

bool is_struct_class(const Heap& heap, ObjectIndex klass) {
  ObjectIndex k = superclass_of(heap, klass);
  for (int depth = 0; k != kNoObject && depth < 4; ++depth, k = superclass_of(heap, k)) {
    if (heap.own_name(k) == "Struct") return true;
    if (!heap.own_name(k).empty()) return false;  // a named class other than Struct
  }
  return false;
}

// ":sku, :qty" from the hidden members Array a Struct class keeps, or "".
std::string struct_members(const Heap& heap, ObjectIndex klass) {
  if (!heap.has_edges()) return "";
  for (ObjectIndex r : heap.references(klass)) {
    if (heap.type(r) != ObjectType::kArray || heap.class_index(r) != kNoObject) continue;
    const auto length = heap.length(r);
    auto refs = record_references(heap, r);
    if (!length || !refs) continue;
    std::string names;
    std::size_t named = 0;
    for (ObjectIndex s : *refs) {
      if (heap.type(s) != ObjectType::kSymbol) continue;
      auto text = read_record_text(heap, s);
      if (!text) continue;
      const std::size_t at = text.value().find("\"value\":\"");
      if (at == std::string::npos) continue;
      const std::size_t end = text.value().find('"', at + 9);
      if (!names.empty()) names += ", ";
      names += ":" + text.value().substr(at + 9, end - at - 9);
      ++named;
    }
    if (named == 0) return std::to_string(*length) + " members";
    if (named < *length) names += ", +" + std::to_string(*length - named);
    return names;
  }
  return "";
}

}  // namespace

bool is_proc(const Heap& heap, ObjectIndex i) {
  return heap.type(i) == ObjectType::kData &&
         (heap.class_name(i) == "Proc" || heap.own_name(i) == "proc");
}

bool is_thread(const Heap& heap, ObjectIndex i) {
  return heap.type(i) == ObjectType::kData && heap.class_name(i) == "Thread";
}

ObjectIndex superclass_of(const Heap& heap, ObjectIndex klass) {
  ObjectIndex k = klass;
  for (int depth = 0; depth < 16; ++depth) {
    if (heap.type(k) != ObjectType::kClass && heap.type(k) != ObjectType::kIClass) return kNoObject;
    k = field_object(heap, k, "superclass");
    if (k == kNoObject || heap.type(k) == ObjectType::kClass) return k;
  }
  return kNoObject;
}

std::string class_kind(const Heap& heap, ObjectIndex klass) {
  if (klass == kNoObject) return "";
  if (!heap.own_name(klass).empty() && !is_address_name(heap.own_name(klass)))
    return std::string(heap.own_name(klass));
  if (heap.type(klass) == ObjectType::kModule) return "anonymous module";
  if (is_singleton(heap, klass)) return "singleton class";
  if (is_struct_class(heap, klass)) {
    const std::string members = struct_members(heap, klass);
    if (members.empty()) return "anonymous Struct";
    return members.find(':') == std::string::npos ? "Struct with " + members
                                                  : "Struct(" + members + ")";
  }
  const ObjectIndex super = superclass_of(heap, klass);
  if (super == kNoObject) return "anonymous class";
  return "anonymous subclass of " + class_kind(heap, super);
}

std::string class_label(const Heap& heap, ObjectIndex klass) {
  std::string name = ruby_class_name(heap, klass);
  if (name.starts_with("#<Class:#<")) {
    // "#<Class:#<Foo:0x...>>": the attached object's class is between "#<" and the last ':'
    const std::size_t colon = name.rfind(":0x");
    if (colon != std::string::npos && colon > 10) {
      const std::string of = name.substr(10, colon - 10);
      const bool vowel = std::string_view("AEIOU").find(of.front()) != std::string_view::npos;
      return std::string("singleton class of ") + (vowel ? "an " : "a ") + of;
    }
    return "singleton class";
  }
  if (is_address_name(name) || name.empty()) return class_kind(heap, klass);
  return name;
}

std::string class_family(const Heap& heap, ObjectIndex klass) {
  if (heap.type(klass) == ObjectType::kModule) return "modules";
  if (heap.type(klass) != ObjectType::kClass) return "";
  if (is_singleton(heap, klass)) return "singleton classes";
  if (is_struct_class(heap, klass)) return "Struct classes";
  const ObjectIndex super = superclass_of(heap, klass);
  if (super == kNoObject) return "";
  return "subclasses of " + class_kind(heap, super);
}

std::string block_origin(const Heap& heap, ObjectIndex proc) {
  if (!is_proc(heap, proc) || !heap.has_edges()) return "";
  ObjectIndex iseq = kNoObject;
  for (ObjectIndex r : heap.references(proc)) {
    if (heap.type(r) == ObjectType::kImemo && heap.own_name(r) == "iseq") iseq = r;
  }
  if (iseq == kNoObject) return "";  // a method's proc (method(:x).to_proc) or a C block
  // An iseq marks its literals, then its label, base label and path, then
  // other iseqs: the last String (or [path, realpath] Array) is the path.
  auto refs = record_references(heap, iseq);
  if (!refs) return "";
  std::vector<std::string> strings;
  std::string path;
  for (std::size_t k = refs->size(); k-- > 0 && strings.size() < 2;) {
    const ObjectIndex r = (*refs)[k];
    if (path.empty() && heap.type(r) == ObjectType::kArray) {
      auto parts = record_references(heap, r);
      if (parts && !parts->empty())
        if (auto value = string_value(heap, parts->front())) path = *value;
      continue;
    }
    if (heap.type(r) != ObjectType::kString) {
      if (!path.empty()) break;  // the location strings are contiguous
      continue;
    }
    auto value = string_value(heap, r);
    if (!value) return "";
    if (path.empty())
      path = *value;
    else
      strings.push_back(*value);
  }
  if (strings.size() < 2 || path.empty()) return "";
  return strings[1] + " (" + path + ")";  // label, then base label, were read backwards
}

}  // namespace heapleak
