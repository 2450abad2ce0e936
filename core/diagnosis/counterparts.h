// What another dump of a diff says of each object of B (the target), at its
// address: A's "was it already there", C's "is it still alive", the sizes
// growth reads and the few tests the passes make on the object found there.
// One byte per object of B, and sizes only where they differ from B's: what
// the diff needs of A and C without holding their heaps (issue 46: A and C
// streamed against B). Built from a loaded heap (counterparts_of, here) or
// from the dump file as it streams by (core/diagnosis/streamed_counterparts.h),
// with the same answer: tests/core/counterparts_test.cpp holds them equal.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/base/column.h"
#include "core/diagnosis/identity.h"
#include "core/heap/dump_summary.h"
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
  Column<std::uint8_t> flags;

  // The other object's `length` column value (core/heap/heap.h: length + 1,
  // or a flagged reference count + 1) and memsize, where either is not the
  // one an identity-only load of B would hold: growth is rare (1-2% of a
  // Rails app's objects from dump to dump), so this stays small.
  struct Sizes {
    std::uint32_t length = 0;
    std::uint32_t memsize = 0;
  };
  std::unordered_map<ObjectIndex, Sizes> changed;

  // The other dump as a whole (its counts, pages, newest generation, report).
  DumpSummary dump;
  // The rule between B and the other (IdentityRule::between), once known.
  IdentityRule rule;

  bool present(ObjectIndex i) const { return flags[i] & kPresent; }
  // same_object(rule, B, i, other, its object at i's address).
  bool same(ObjectIndex i) const {
    return flags[i] & (rule.allocation_site || rule.generation ? kSameIfTraced : kSameIfUntraced);
  }
  bool same_container(ObjectIndex i) const { return flags[i] & kSameContainer; }
  // same_container_in (growth_verdict.h): the same container, or the same Thread.
  bool same_container_or_thread(ObjectIndex i) const {
    return flags[i] & (kSameContainer | kSameThread);
  }
  bool first_ref_equal(ObjectIndex i) const { return flags[i] & kFirstRefEqual; }
  // Gone by the other dump: no object at its address, or another one.
  bool gone(ObjectIndex i) const { return !present(i) || !same(i); }

  // The other object's `length` column value, for B's object i of `target`
  // (kept only where it differs from the value an identity-only load of B
  // would hold).
  std::uint32_t length_column(const Heap& target, ObjectIndex i) const;
  // Heap::length and Heap::record_reference_count of the other object at
  // i's address (present(i) must hold).
  std::optional<std::uint32_t> length(const Heap& target, ObjectIndex i) const;
  std::optional<std::uint32_t> record_reference_count(const Heap& target, ObjectIndex i) const;
  // The memory this holds (what a daemon keeping it charges its budget).
  std::uint64_t bytes_used() const {
    // An unordered_map node: the pair, the next pointer, the cached hash;
    // plus a bucket pointer per element at load factor 1.
    constexpr std::uint64_t kPerChanged = sizeof(std::pair<const ObjectIndex, Sizes>) + 3 * 8;
    return flags.capacity() + changed.size() * kPerChanged +
           dump.pages.capacity() * sizeof(std::uint64_t) + sizeof(*this);
  }
  // The other object's memsize (present(i) must hold).
  std::uint32_t memsize(const Heap& target, ObjectIndex i) const {
    const auto it = changed.find(i);
    return it == changed.end() ? target.memsize(i) : it->second.memsize;
  }
};

// From a loaded `other` (A or C, any load mode): the reference the streamed
// build is held to.
Counterparts counterparts_of(const Heap& target, const Heap& other);

// A slot reused by an object of the same type and class passes the contents
// test when the contents appear or vanish in place (an empty Hash that
// gained entries, a String that turned shared): the rule cannot tell those
// from a new object at a dead one's address. Where `x` has edges, its
// referrers can: an object that kept its identity is still held by an old
// object (one `match` pairs with the other heap), while a new Hash of a new
// record, or a new shared String of a new Hash, is held by new objects only.
// Such lenient matches of x's objects (`match[i]`: the same object at i's
// address in y, by y.rule) held by no matched object and no root are undone
// (cleared), and so are shared Strings whose root holds other bytes than
// the value y showed (one that turned shared in place gave its own bytes
// to its root); returns how many. Decided on the matches as given, so the
// order objects are visited in does not change the answer.
std::size_t undo_unheld_lenient_matches(const Heap& x, const Counterparts& y,
                                        std::span<char> match);

}  // namespace heapleak
