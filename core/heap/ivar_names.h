// Names the instance variable through which one object holds another, from
// the dump's shapes (Ruby 3.2+): the holder's record is re-read from the dump
// (its raw `references`, duplicates kept, and its `shape_id`), its shape
// chain gives the ivars in index order, and the references list the
// heap-valued ones in that order. Exact only when the dump allows it;
// otherwise the candidates, never a guess by position.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/base/address.h"
#include "core/heap/heap.h"

namespace heapleak {

struct EdgeName {
  enum class Kind : std::uint8_t { kNone, kExact, kCandidates };
  Kind kind = Kind::kNone;
  // kExact: the ivars that hold the target (several when the same object
  // sits in several ivars); kCandidates: the ivars that may hold it.
  std::vector<std::string> names;
};

// An object's ivar slots in index order, from its shape. Hidden slots
// (`__classpath__`, `ID_INTERNAL(n)`, OBJ_ID, any name not starting with
// `@`) take an index but are never named. `known` is false when the chain
// cannot be read (unknown id, too-complex shape, a loop).
struct IvarSlots {
  bool known = false;
  std::vector<std::string> names;  // "" for a hidden slot
};

IvarSlots ivar_slots(const Heap& heap, std::uint64_t shape_id);

// Which of `slots` hold `target`, given the holder's heap-valued ivars
// `references` in slot order (immediates skipped, duplicates kept). The k-th
// of m references sits in one of slots k .. k + (n - m): exact when that is
// one slot for every position `target` appears at.
EdgeName match_slots(const IvarSlots& slots, std::span<const Address> references, Address target);

// The same for a class's or module's references before 4.0, once the ones
// that are not ivars where the marking order pins them are taken out: what
// is left may end with constants, so more references than slots give
// candidates (the slot range each may sit in), never an exact name.
EdgeName match_class_slots(const IvarSlots& slots, std::span<const Address> references,
                           Address target);

// How `holder` holds `target`: through an ivar of the holder itself (an
// OBJECT), of its 4.0 `IMEMO:fields` object (a class's ivars), or of a
// class or module before 4.0 (its references in the GC's marking order,
// name_through_class). kNone for other holders (element of an Array/Hash),
// dumps without shapes, or when the dump file cannot be read back.
EdgeName ivar_holding(const Heap& heap, ObjectIndex holder, ObjectIndex target);

// ".@cache", ".(@a and @c)", ".(one of @a, @b)"; "" for kNone.
std::string edge_suffix(const EdgeName& name);

// Ruby 4.0 keeps a class's (and generic objects') instance variables in a
// separate `IMEMO:fields` object. It is part of its owner: never a row,
// holder, retainer or path hop of its own, and its memsize counts with the
// owner's.
bool is_fields_object(const Heap& heap, ObjectIndex i);

}  // namespace heapleak
