// C read again with its references when a compaction between B and C left
// some of B's new objects unmatched: only C's references tell copies alike
// apart, through their holders (core/diagnosis/moved_objects.h). A diff keeps
// C identity-only; a compaction is rare, so C is read again when one is
// seen rather than every diff paying for C's references.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "core/diagnosis/leak_diff.h"
#include "core/heap/heap.h"

namespace heapleak::engine {

// Reads dump k of a diff again with its references: the front end's own
// loader (the CLI reads the file; heapleakd loads it as loadHeap would).
// Null, or a throw, when it cannot: the answer is then made without.
using ReadWithReferences = std::function<std::shared_ptr<const Heap>(std::size_t dump)>;

struct LaterReread {
  std::shared_ptr<const Heap> heap;  // C with references; null: keep the diff as it is
  std::string warning;               // what was done, and what it cost (or why not)
};

// C (`later`, dump `k` of the diff) again, when `diff` asks for it: a
// compaction left objects unmatched, matched without C's references. The
// reread file must be the one read first (its identity), or it is not used.
LaterReread reread_for_moved_objects(const LeakDiff& diff, const OtherDump& later, std::size_t k,
                                     const ReadWithReferences& reread);

}  // namespace heapleak::engine
