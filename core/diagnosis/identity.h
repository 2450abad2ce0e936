// When two dumps show "the same object". Ruby reuses a freed slot's address
// and class addresses move, so an address match alone is not enough. What an
// object cannot change in place decides: type, class *name*, and, when both
// dumps trace allocations, allocation site and generation. Contents that
// mutate in place (a string's `value` once it becomes shared, an Array's or
// Hash's first reference) decide only without tracing, and only when both
// records carry them.
// Also the looser test growth is read by: the same container (type, class
// name, generation), whatever it holds now, or the same Thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/heap/heap.h"

namespace heapleak {

// The rule used between two heaps depends on which optional fields both have.
struct IdentityRule {
  bool allocation_site = false;  // both dumps traced: file and line must agree
  bool generation = false;       // both dumps traced: generation must agree
  // Without tracing, a record's contents are all there is to tell a reused
  // slot apart: `value` and the first reference must agree when both records
  // have one (a string that became shared has no `value` and a reference to
  // its shared root; an empty Hash that gained entries has no first reference).
  bool contents = true;

  static IdentityRule between(const Heap& x, const Heap& y);
  std::string describe() const;
};

// Objects x[i] and y[j] are taken to sit at the same address; is it the same object?
bool same_object(const IdentityRule& rule, const Heap& x, ObjectIndex i, const Heap& y,
                 ObjectIndex j);

// same_object (the same tests, one implementation) for many pairs of the same two heaps (the diff
// asks it for every object): names are compared by id through a table from x's string ids to y's,
// built once (each pool holds a string once), instead of by text, which cost a memcmp at a random
// place in the pool per name.
class SameObject {
 public:
  SameObject(const IdentityRule& rule, const Heap& x, const Heap& y);
  bool operator()(ObjectIndex i, ObjectIndex j) const;

 private:
  IdentityRule rule_;
  const HeapColumns& x_;
  const HeapColumns& y_;
  std::vector<std::uint32_t> x_to_y_;  // x's string id -> y's, or kAbsent
  static constexpr std::uint32_t kAbsent = UINT32_MAX;
};

// The container `i` of `x` and `j` of `y`, at one address, are one object for
// reading its growth: same type and class name (and generation when both
// have one). Its contents do not count: an LRU that evicted its first key, a
// ring buffer that shifted, are still the same container (the diff's
// untraced identity compares first references and would call them new).
bool same_container(const Heap& x, ObjectIndex i, const Heap& y, ObjectIndex j);

// Whether Thread `i` of `x` and the Thread at its address in `y` are one: a
// Thread's first reference is whatever its stack holds at the moment, so
// the identity rule's first-reference test says nothing about it.
bool same_thread(const Heap& x, ObjectIndex i, const Heap& y, ObjectIndex j);

// Where `object` of `target` sits in `other`, when it is the same container
// there (same_container, or the same thread); `other` may be `target` itself.
std::optional<ObjectIndex> same_container_in(const Heap& target, ObjectIndex object,
                                             const Heap& other);

}  // namespace heapleak
