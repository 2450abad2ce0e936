// Objects that moved between B and C while most stayed: a GC.compact (or
// auto_compact) between the dumps moves part of the heap, too little for the
// whole-heap check (core/diagnosis/leak_diff.cpp) to see, and the leaked objects it
// moved vanish from the address diff without a word. Told from the objects
// alive since A: a program doing the same work keeps almost all of them from
// B to C, at their addresses; compaction empties whole pages of them (half
// of their old objects gone, where churn takes a few here and there) while
// copies of the same content appear at addresses new in C.
// A vanished object of B is matched back to C where its content (type,
// class, value, size, references) names one object on each side; when C was
// read with its references too, also through its holder: an object of B and
// its counterpart in C hold the same vanished and appeared objects.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/diagnosis/other_dump.h"
#include "core/heap/heap.h"

namespace heapleak {

struct MovedObjects {
  bool moved = false;                // the signs of a compaction between B and C
  std::uint64_t old_objects = 0;     // objects of B alive since A at their address
  std::uint64_t old_vanished = 0;    // of those, not at their address in C
  std::uint64_t old_reappeared = 0;  // of those, content found at an address new in C
  std::vector<ObjectIndex> matched;  // B's new objects found again in C, ascending
  std::uint64_t by_holder = 0;       // of those, matched through their holder (C's references)
  std::uint64_t unmatched = 0;       // B's new objects gone from their address, not told apart
  bool later_references = false;     // C's references were there to match with
};

// `in_baseline[i]`/`in_later[i]`: B's object i is the same object in A / C
// at its address (leak_diff.cpp's matches). Only B's new objects not in C at
// their address are looked for again, and only when the old ones moved:
// then, and only then, C's heap is read (OtherDump::heap). Without C's
// references (an identity-only load), by content alone: copies of one
// content (a Struct of a kind, identical Strings) stay unmatched.
MovedObjects find_moved_objects(const Heap& target, const OtherDump& later,
                                std::span<const char> in_baseline, std::span<const char> in_later);

}  // namespace heapleak
