// A container the program replaces by a new one between dumps
// (`@sessions = @sessions.reject { ... }`, `@errors = @errors.last(50)`) sits
// at another address in A and in C, so its growth cannot be read at its
// address. Its owner, the object holding it, stays: the container is found
// again among the owner's references in each dump, by its type, class and rank.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "core/heap/heap.h"

namespace heapleak {

struct EntryQuery {
  ObjectIndex owner;  // in the target heap
  ObjectIndex entry;  // in the target heap: one of owner's references
};

// For each query, the object of `other` that holds the place of `entry`:
// when `entry` is the k-th of owner's references with its type and class in
// the target, the k-th such reference of the same owner in `other`. nullopt
// when the owner is not the same object there, or holds no k-th. `other`
// may be identity-only: the owners' records are then read back from its
// dump file (core/heap/record_rescan.h), in one pass; if that fails (the file
// changed or is gone), every answer is nullopt.
std::vector<std::optional<ObjectIndex>> find_replaced_entries(const Heap& target,
                                                              std::span<const EntryQuery> queries,
                                                              const Heap& other);

}  // namespace heapleak
