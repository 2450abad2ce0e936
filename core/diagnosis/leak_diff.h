// The 3-dump technique: objects in the target dump B that were not in the
// baseline A and are still alive in the later dump C, grouped for people
// (by class, allocation site or generation). Without C it is the 2-dump B - A.
// When the dumps look compacted (objects moved, so addresses mean nothing),
// it says so and matches by content fingerprint, counting, instead.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/column.h"
#include "core/diagnosis/grown_objects.h"
#include "core/diagnosis/identity.h"
#include "core/diagnosis/other_dump.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"

namespace heapleak {

struct LeakGroup {
  std::string key;
  std::uint64_t count = 0;
  std::uint64_t memsize = 0;
  std::vector<ObjectIndex> samples;  // indices into the target heap, ascending address
  // Most of the group is VM internals (IMEMO, ICLASS, DATA:VM/*):
  // ranked after the groups a program's own code made.
  bool vm_internal = false;
};

struct LeakDiffOptions {
  GroupBy group_by = GroupBy::kClass;
  std::size_t samples_per_group = std::numeric_limits<std::size_t>::max();
};

struct LeakDiff {
  std::vector<ObjectIndex> leaked;  // indices into the target heap, ascending address
  std::vector<LeakGroup> groups;    // by count, then memsize, then key
  std::uint64_t total_count = 0;
  std::uint64_t total_memsize = 0;
  bool three_way = false;
  std::string rule;                // the identity rule used, in words
  double baseline_survival = 1.0;  // share of A's objects found unchanged in B
  double later_survival = 1.0;     // share of B's objects found unchanged in C
  bool compacted = false;
  // Part of the heap moved between B and C (core/diagnosis/moved_objects.h): an object
  // of B missing from its address in C may be alive elsewhere.
  bool moved_later = false;
  // Of B's new objects gone from their address, how many could not be told
  // apart, and whether C's references were there to tell them by their
  // holders: without, the engine reads C again with them (engine/explain.h).
  std::uint64_t moved_unmatched = 0;
  bool moved_with_references = false;
  std::vector<std::string> warnings;
  // Old objects that grew in place A < B < C (three-way, uncompacted diffs):
  // leaks with no new objects (a String buffer, an Array of Integers).
  std::vector<GrownObject> grown;
};

// Which of a diff's dumps plays which part: A B [C], or a series D1..DN
// (N >= 4) read as A = D1, B = D(N-1), C = DN. The one rule every front end,
// the load plan and the pipeline read.
struct DiffRoles {
  std::size_t baseline = 0;
  std::size_t target = 1;
  std::optional<std::size_t> later;  // none with two dumps
};
DiffRoles diff_roles(std::size_t dumps);

// stats' diff: match_identities, select_leaked, find_grown, group_leaked.
// A and C held (tests; heapleakd holds its heaps), or streamed against B
// (OtherDump: the CLI's stats).
LeakDiff diff_heaps(const Heap& baseline, const Heap& target, const Heap* later,
                    const LeakDiffOptions& options = {});
LeakDiff diff_other_dumps(const OtherDump& baseline, const Heap& target, const OtherDump* later,
                          const LeakDiffOptions& options = {});

// The diff's passes (explain runs them as the first of its list,
// core/explain/explain_pipeline.cpp). B's objects found again in A and in C,
// at their address: what every later pass reads.
struct IdentityMatch {
  // Columns (huge pages where the kernel has them), as every per-object array.
  Column<char> in_baseline;  // by object of B: the same object in A
  Column<char> in_later;     // the same object in C; empty without C
};
// Fills `diff`'s rule, survival shares, compacted flag and warnings (the
// loads' first, then compaction's).
IdentityMatch match_identities(const OtherDump& baseline, const Heap& target,
                               const OtherDump* later, LeakDiff& diff);
// diff.leaked: new in B and alive in C (or, part of the heap having moved
// between B and C, found again by content: core/diagnosis/moved_objects.h); counted
// by content fingerprint when the dumps look compacted (A's and C's heaps
// are then read: OtherDump::heap).
void select_leaked(const OtherDump& baseline, const Heap& target, const OtherDump* later,
                   const IdentityMatch& match, LeakDiff& diff);
// diff.grown: old objects that grew in place A < B < C (uncompacted, with C).
void find_grown(const OtherDump& baseline, const Heap& target, const OtherDump* later,
                const IdentityMatch& match, LeakDiff& diff);
// diff's totals and groups of the leaked objects.
void group_leaked(const Heap& target, const LeakDiffOptions& options, LeakDiff& diff);

// Groups `objects` of `heap`: groups of the program's own objects first,
// then those that are mostly VM internals; largest count first in each.
std::vector<LeakGroup> group_objects(const Heap& heap, std::span<const ObjectIndex> objects,
                                     GroupBy group_by, std::size_t samples_per_group);

}  // namespace heapleak
