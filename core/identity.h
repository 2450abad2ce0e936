// When two dumps show "the same object". Ruby reuses a freed slot's address
// and class addresses move, so an address match alone is not enough: the
// records at that address must also agree on type, class *name*, `value`,
// allocation site and generation when both dumps have them.
#pragma once

#include <string>

#include "core/heap.h"

namespace heapleak {

// The rule used between two heaps depends on which optional fields both have.
struct IdentityRule {
  bool allocation_site = false;  // both dumps traced: file and line must agree
  bool generation = false;       // both dumps traced: generation must agree
  // Without tracing, an Array or Hash in a reused slot has no `value` to tell
  // it apart: a different first reference then marks a different object.
  bool first_reference = false;

  static IdentityRule between(const Heap& x, const Heap& y);
  std::string describe() const;
};

// Objects x[i] and y[j] are taken to sit at the same address; is it the same object?
bool same_object(const IdentityRule& rule, const Heap& x, ObjectIndex i, const Heap& y,
                 ObjectIndex j);

}  // namespace heapleak
