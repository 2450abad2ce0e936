// When two dumps show "the same object". Ruby reuses a freed slot's address
// and class addresses move, so an address match alone is not enough. What an
// object cannot change in place decides: type, class *name*, and, when both
// dumps trace allocations, allocation site and generation. Contents that
// mutate in place (a string's `value` once it becomes shared, an Array's or
// Hash's first reference) decide only without tracing, and only when both
// records carry them.
#pragma once

#include <cstdint>
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

// A slot reused by an object of the same type and class passes the contents
// test when the contents appear or vanish in place (an empty Hash that
// gained entries, a String that turned shared): the rule cannot tell those
// from a new object at a dead one's address. Where `x` has edges, its
// referrers can: an object that kept its identity is still held by an old
// object (one `match` pairs with the other heap), while a new Hash of a new
// record, or a new shared String of a new Hash, is held by new objects only.
// Such lenient matches of x's objects (`match[i]`: y's object at i's
// address) held by no matched object and no root are undone (set to
// kNoObject), and so are shared Strings whose root holds other bytes than
// the value y showed (one that turned shared in place gave its own bytes
// to its root); returns how many. Decided on the matches as given, so the
// order objects are visited in does not change the answer.
std::size_t undo_unheld_lenient_matches(const IdentityRule& rule, const Heap& x, const Heap& y,
                                        std::vector<ObjectIndex>& match);

}  // namespace heapleak
