// Whether a holder's growth A -> B -> C reads as a leak or as a container at
// its cap: the tolerance that keeps an evicting cache (217 -> 209 -> 218), a
// size-capped store (147 -> 141 -> 152) and a ring buffer filling up between
// the dumps (45 -> 95 -> 100) out of the leak rows, whatever the phase of
// the workload when the dumps were taken. The numbers it judges (Growth,
// one per leak row) and how one is read in another dump (size_in_dump) are
// here too, below the rows (core/diagnosis/leak_row.h) that carry them; the
// container tests they use are identity.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/diagnosis/counterparts.h"
#include "core/heap/heap.h"

namespace heapleak {

// Array length / Hash size (else the number of references) of the holder in
// A, B, C; of the last VM hop under the holder when there are hops (the
// object whose references actually gained the leaked objects).
struct Growth {
  std::string field;  // length|size|references
  std::optional<std::uint64_t> baseline, target, later;
  bool drops = false;    // some of its entries in B are gone by C: it evicts (growth_verdict.h)
  bool rebuilt = false;  // its entry holding the leak was replaced by a copy: size says nothing
  bool stack = false;    // a Thread or Fiber: its references include its stack (growth_verdict.h)
  // Read on the rebuilt entry instead (core/diagnosis/replaced_entries.h): a container the holder
  // replaces by a new one between dumps, whose length or size can be read in each.
  bool replaced = false;
  std::uint64_t dropped = 0;  // how many of its references in B are gone by C (when it grew)
  // The holder itself was made between A and B (core/diagnosis/born_holders.h): no size in A.
  bool born = false;
};

// What growth_of reads of `object` of `target` (its length when it has one,
// else its references), in `other`: nullopt unless the same container
// (same_container, or the same thread) sits at its address there. `other`
// may be `target` itself. From another dump's counterparts, the same.
std::optional<std::uint64_t> size_in_dump(const Heap& target, ObjectIndex object,
                                          const Heap& other);
std::optional<std::uint64_t> size_in_dump(const Heap& target, ObjectIndex object,
                                          const Counterparts& other);

// `holder` gained the container `entry` (new by the diff) after `baseline`:
// it holds more in B than in A, or A had no container of entry's type and
// class at its address. Else the diff called `entry` new because its first
// entry changed (a store pruned its oldest), not because it was made after A.
bool gained_after(const Counterparts& baseline, const Heap& target, ObjectIndex holder,
                  ObjectIndex entry);

// Some of the objects `holder` references in `target` are gone by `later`:
// it evicts (an append-only leak keeps every entry). False without `later`.
bool drops_entries(const Heap& target, ObjectIndex holder, const Counterparts* later);

// How many of the objects `holder` references in `target` are gone by
// `later` (0 without `later`): how much of what it held it turned over.
// Counting stops at `enough` (each look is a search in C).
std::size_t dropped_entries(const Heap& target, ObjectIndex holder, const Counterparts* later,
                            std::size_t enough = SIZE_MAX);

// dropped_entries for a holder of any size at a bounded cost: exact up to
// `looks` references, else counted on `looks` of them evenly spread and
// scaled (a leak's Hash of a million entries is one random read per look).
std::size_t estimated_dropped_entries(const Heap& target, ObjectIndex holder,
                                      const Counterparts& later, std::size_t looks = 65536);

// The holder keeps the leak through one entry that is rebuilt, not grown: its
// first reference in B holds most of the leaked bytes (`retained`, by B's
// dominator tree) and is gone by C (so it is no leaked object itself), where the holder's first
// reference is another object. ActiveSupport's set_callback replaces a class's CallbackChain with a
// grown copy on every call: the `__callbacks` Hash keeps one key, so its size (1 -> 1 -> 1) cannot
// say whether it grew. An LRU that evicted its first key does not qualify: that key holds little of
// the leak.
bool rebuilt_entry(const Heap& target, ObjectIndex holder, const Counterparts* later,
                   std::uint64_t retained);

// The growth says "bounded": C not above B; or C back within a tolerance of
// the larger of A and B after a dip; or a container that evicts and whose
// growth slowed down sharply from A->B to B->C (it reached its cap). A
// Thread's or Fiber's references include the values its stack holds at the
// moment of the dump (167 -> 169 -> 173 for an idle Puma pool thread): a
// few more in C than in B (up to max(8, B/10)) is that stack, not growth.
// A container that turns over its entries (a fifth or more of B's
// references gone by C) and grew by no more than an eighth of what it lost
// is a store at its cap (113 -> 116 -> 120 with 69 of 232 gone).
// A container the program replaces by a filtered copy (`replaced`) that lost
// half or more of what it held in B by C, and grew by no more than it lost,
// turns over around a cap (a session store swept of expired entries reads
// 52 -> 47 -> 68 by the phase of the sweep at each dump); a leak keeps what
// it held, and one that evicts a little (logged-out sessions) keeps most.
bool looks_bounded(const Growth& growth);

}  // namespace heapleak
