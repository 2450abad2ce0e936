// What another dump of a diff says of each object of B (the target), at its
// address: A's "was it already there", C's "is it still alive", the sizes
// growth reads and the few tests the passes make on the object found there.
// One byte per object of B, and sizes only where they differ from B's: what
// the diff needs of A and C without holding their heaps (issue 46: A and C
// streamed against B). Built from a loaded heap (counterparts_of, here) or
// from the dump file as it streams by (core/diagnosis/streamed_counterparts.h),
// with the same answer: tests/core/counterparts_test.cpp holds them equal.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/diagnosis/identity.h"
#include "core/heap/heap.h"

namespace heapleak {

struct Counterparts {
  // By object of B: what the other dump has at its address.
  enum Flag : std::uint8_t {
    kPresent = 1,           // an object (the first record at the address)
    kSameIfTraced = 2,      // same_object when both dumps trace allocations
    kSameIfUntraced = 4,    // same_object when either does not
    kOneSidedContents = 8,  // value or first reference on one side only (a lenient match)
    kSharedElsewhere = 16,  // B's shared String's root holds other bytes than its value there
    kSameContainer = 32,    // same_container: type, class name, generation
    kSameThread = 64,       // both are Threads
    kFirstRefEqual = 128,   // the same first-reference fingerprint
  };
  std::vector<std::uint8_t> flags;

  // The other object's `length` column value (core/heap/heap.h: length + 1,
  // or a flagged reference count + 1) and memsize, where that value is not
  // the one an identity-only load of B would hold: growth is rare (1-2% of
  // a Rails app's objects from dump to dump), so this stays small.
  struct Sizes {
    std::uint32_t length = 0;
    std::uint32_t memsize = 0;
  };
  std::unordered_map<ObjectIndex, Sizes> changed;

  // The other dump as a whole.
  std::uint64_t objects = 0;  // distinct addresses
  std::array<std::uint64_t, 64> by_type{};
  bool traced = false;  // has_allocation_info(): its sites are believed
  // The rule between B and the other (IdentityRule::between), once known.
  IdentityRule rule;
  LoadReport report;

  bool present(ObjectIndex i) const { return flags[i] & kPresent; }
  // same_object(rule, B, i, other, its object at i's address).
  bool same(ObjectIndex i) const {
    return flags[i] & (rule.allocation_site || rule.generation ? kSameIfTraced : kSameIfUntraced);
  }
  bool same_container(ObjectIndex i) const { return flags[i] & kSameContainer; }
  // The other's `length` column value for B's object i (kept only where it
  // differs from `b_length`, the identity-only value of B's own).
  std::uint32_t length_column(ObjectIndex i, std::uint32_t b_length) const {
    const auto it = changed.find(i);
    return it == changed.end() ? b_length : it->second.length;
  }
};

// From a loaded `other` (A or C, any load mode): the reference the streamed
// build is held to.
Counterparts counterparts_of(const Heap& target, const Heap& other);

}  // namespace heapleak
