#include "core/heap/ivar_names.h"

#include <algorithm>
#include <cstring>

#include "core/heap/record_reader.h"
#include "core/reading/record_parser.h"

namespace heapleak {
namespace {

bool is_hidden_name(std::string_view name) {
  // Ruby's internal ivars: __classpath__, __attached__, __members__,
  // ID_INTERNAL(n), ... Only `@name` and `@@name` are Ruby's own.
  return name.empty() || name.front() != '@';
}

struct ShapeFacts {
  bool ok = false;
  std::uint64_t shape_id = 0;
  bool too_complex = false;
  std::vector<Address> references;
};

ShapeFacts read_shape_facts(const Heap& heap, ObjectIndex i) {
  ShapeFacts facts;
  if (heap.shapes().empty()) return facts;
  auto text = read_record_text(heap, i);
  if (!text) return facts;
  std::string padded = std::move(*text);
  const std::size_t length = padded.size();
  padded.append(64, ' ');
  RecordParser parser(LoadMode::kFull);
  DumpRecord record;
  parser.parse(padded.data(), length, padded.size(), record);
  if (record.kind != RecordKind::kObject || !record.has_shape_id) return facts;
  facts.ok = true;
  facts.shape_id = record.shape_id;
  facts.too_complex = record.too_complex_shape;
  facts.references = std::move(record.references);
  return facts;
}

EdgeName name_through(const Heap& heap, ObjectIndex slot_holder, ObjectIndex target) {
  ShapeFacts facts = read_shape_facts(heap, slot_holder);
  if (!facts.ok || facts.too_complex) return {};
  return match_slots(ivar_slots(heap, facts.shape_id), facts.references, heap.address(target));
}

// A CLASS's or MODULE's ivars before 4.0 (no IMEMO:fields): its references
// follow the GC's marking order, superclass, method entries and call caches
// (IMEMOs), ivars in shape order, constants (value, then the file that
// defined it), then (3.3+) the class path String. Take out what is not an
// ivar where the order pins it (the superclass, IMEMOs, a trailing String
// holding the class's name), then match the rest against the shape's slots;
// constants that remain make the answer candidates (match_class_slots).
EdgeName name_through_class(const Heap& heap, ObjectIndex klass, ObjectIndex target) {
  ShapeFacts facts = read_shape_facts(heap, klass);
  if (!facts.ok || facts.too_complex) return {};
  const IvarSlots slots = ivar_slots(heap, facts.shape_id);
  if (!slots.known || slots.names.empty()) return {};
  std::vector<Address> rest;
  const auto& refs = facts.references;
  for (std::size_t k = 0; k < refs.size(); ++k) {
    const auto i = heap.find(refs[k]);
    if (i && heap.type(*i) == ObjectType::kImemo) continue;
    if (k == 0 && heap.type(klass) == ObjectType::kClass && i && is_class_like(heap.type(*i)))
      continue;  // the superclass (or an included module's ICLASS)
    rest.push_back(refs[k]);
  }
  // 3.2 keeps the class path as a hidden ivar (the first slot); 3.3+ marks
  // it last, apart from the ivars.
  const std::string_view name = heap.own_name(klass);
  if (!rest.empty() && !name.empty() && !slots.names.front().empty()) {
    const auto last = heap.find(rest.back());
    if (last && heap.type(*last) == ObjectType::kString &&
        heap.value_hash(*last) == fingerprint("\"" + std::string(name) + "\""))
      rest.pop_back();
  }
  return match_class_slots(slots, rest, heap.address(target));
}

}  // namespace

EdgeName match_class_slots(const IvarSlots& slots, std::span<const Address> references,
                           Address target) {
  const std::size_t n = slots.names.size();
  if (references.size() <= n) return match_slots(slots, references, target);
  // More references than slots: the tail holds constants. The k-th
  // reference, if an ivar, sits in one of slots k .. n - 1; at k >= n it is
  // a constant. Never exact: each may be a constant while ivars hold immediates.
  EdgeName out;
  std::vector<char> possible(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    if (references[k] != target) continue;
    for (std::size_t s = k; s < n; ++s) possible[s] = 1;
  }
  for (std::size_t s = 0; s < n; ++s) {
    if (possible[s] && !slots.names[s].empty()) out.names.push_back(slots.names[s]);
  }
  if (!out.names.empty()) out.kind = EdgeName::Kind::kCandidates;
  return out;
}

IvarSlots ivar_slots(const Heap& heap, std::uint64_t shape_id) {
  IvarSlots slots;
  const ShapeTable& table = heap.shapes();
  if (!table.has(shape_id)) return slots;
  std::uint64_t id = shape_id;
  for (std::size_t steps = 0;; ++steps) {
    if (!table.has(id) || steps > table.kind.size()) return slots;  // broken chain or a loop
    switch (table.kind[id]) {
      case ShapeKind::kTooComplex:
        return slots;  // ivars in a hash table: no order to match
      case ShapeKind::kIvar: {
        std::string_view name = heap.interned(table.edge_name[id]);
        slots.names.emplace_back(is_hidden_name(name) ? std::string_view() : name);
        break;
      }
      case ShapeKind::kObjId:
        slots.names.emplace_back();  // the object id takes a slot (3.4+)
        break;
      default:
        break;
    }
    const ShapeKind kind = table.kind[id];
    if (kind == ShapeKind::kRoot || kind == ShapeKind::kObjectRoot) break;
    if (table.parent[id] == ShapeTable::kNoShape) return slots;  // a chain cut short
    id = table.parent[id];
  }
  std::reverse(slots.names.begin(), slots.names.end());
  slots.known = true;
  return slots;
}

EdgeName match_slots(const IvarSlots& slots, std::span<const Address> references, Address target) {
  EdgeName out;
  const std::size_t n = slots.names.size();
  const std::size_t m = references.size();
  if (!slots.known || m > n) return out;  // more references than ivars: not ivars only
  std::vector<char> possible(n, 0);
  std::vector<char> certain(n, 0);
  bool all_certain = true;
  bool found = false;
  for (std::size_t k = 0; k < m; ++k) {
    if (references[k] != target) continue;
    found = true;
    for (std::size_t s = k; s <= k + (n - m); ++s) possible[s] = 1;
    if (n == m) {
      certain[k] = 1;
    } else {
      all_certain = false;
    }
  }
  if (!found) return out;
  for (std::size_t s = 0; s < n; ++s) {
    if (possible[s] && !slots.names[s].empty()) out.names.push_back(slots.names[s]);
  }
  if (out.names.empty()) return out;  // only hidden slots: not an ivar
  bool hidden_possible = false;
  for (std::size_t s = 0; s < n; ++s) hidden_possible |= possible[s] && slots.names[s].empty();
  out.kind = all_certain && !hidden_possible ? EdgeName::Kind::kExact : EdgeName::Kind::kCandidates;
  if (out.kind == EdgeName::Kind::kCandidates && out.names.size() == 1 && !hidden_possible)
    out.kind = EdgeName::Kind::kExact;  // every position it may sit at is that one ivar
  return out;
}

EdgeName ivar_holding(const Heap& heap, ObjectIndex holder, ObjectIndex target) {
  if (heap.shapes().empty() || !heap.has_edges()) return {};
  // 4.0 keeps a class's (and generic objects') ivars in an IMEMO:fields
  // object the owner references: the hop owner -> value is named there.
  for (ObjectIndex fields : heap.references(holder)) {
    if (!is_fields_object(heap, fields)) continue;
    const auto refs = heap.references(fields);
    if (std::find(refs.begin(), refs.end(), target) != refs.end())
      return name_through(heap, fields, target);
  }
  if (heap.type(holder) == ObjectType::kObject || is_fields_object(heap, holder)) {
    // An OBJECT's and a fields object's references are their heap-valued
    // ivars, in slot order; the class is not among them.
    return name_through(heap, holder, target);
  }
  if (heap.type(holder) == ObjectType::kClass || heap.type(holder) == ObjectType::kModule)
    return name_through_class(heap, holder, target);
  return {};
}

std::string edge_suffix(const EdgeName& name) {
  if (name.kind == EdgeName::Kind::kNone || name.names.empty()) return "";
  if (name.names.size() == 1)
    return name.kind == EdgeName::Kind::kExact ? "." + name.names.front()
                                               : ".(maybe " + name.names.front() + ")";
  std::string text = name.kind == EdgeName::Kind::kExact ? ".(" : ".(one of ";
  for (std::size_t k = 0; k < name.names.size(); ++k) {
    if (k) text += name.kind == EdgeName::Kind::kExact ? " and " : ", ";
    text += name.names[k];
  }
  return text + ")";
}

bool is_fields_object(const Heap& heap, ObjectIndex i) {
  return heap.type(i) == ObjectType::kImemo && heap.own_name(i) == "fields";
}

}  // namespace heapleak
