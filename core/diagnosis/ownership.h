// Who owns memory, built on the dominator tree: the top retainers of a heap
// (by object and by class), the owner of a set of objects (their lowest
// common dominator) with MAT-style merged shortest paths from the GC roots
// grouped by class, and the strings held many times over.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/graph/root_paths.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"

namespace heapleak {

struct Retainer {
  ObjectIndex object = kNoObject;
  std::uint64_t retained = 0;
};

struct ClassRetention {
  std::string key;
  std::uint64_t count = 0;
  std::uint64_t retained = 0;  // summed over the class's objects not dominated by another of them
};

std::vector<Retainer> top_retainers(const Heap& heap, std::size_t limit);
std::vector<ClassRetention> top_retainers_by_class(const Heap& heap, std::size_t limit);
// Every key's row of top_retainers_by_class, given object_keys(heap), unsorted
// and indexed as keys.names (count 0 for a key with no reachable object).
std::vector<ClassRetention> class_retention(const Heap& heap, const ObjectKeys& keys);

// One level of merged shortest paths: objects on the root paths grouped by
// their class key at each depth, with how many of the set pass through.
struct PathTreeNode {
  std::string key;
  std::uint64_t count = 0;
  ObjectIndex example = kNoObject;  // one object of this node (kNoObject for ROOT nodes)
  std::vector<PathTreeNode> children;
};

struct Owner {
  ObjectIndex object = kNoObject;  // kNoObject: no single object owns the set
  std::uint64_t retained = 0;
  std::uint64_t objects = 0;  // objects of the set under this owner
};

struct OwnerReport {
  std::vector<ObjectIndex> set;  // the objects asked about that are reachable
  std::vector<ObjectIndex> unreachable;
  Owner owner;                // lowest common dominator
  std::vector<Owner> owners;  // when the set has no single owner: the owner of each part
  PathTreeNode merged_paths;  // root of the merged-paths tree ("GC roots")
  RootPath owner_path;        // from a GC root to the owner
};

// `max_paths` bounds how many objects' root paths are merged.
OwnerReport find_owner(const Heap& heap, std::span<const ObjectIndex> objects,
                       std::size_t max_paths = 2000);

// The owners of a set of reachable objects: their lowest common dominator,
// or, when only the GC roots dominate them all, the owner of each part.
std::vector<Owner> owners_of(const Heap& heap, std::span<const ObjectIndex> reachable);

struct DuplicateStrings {
  std::uint32_t value_hash = 0;
  std::uint64_t count = 0;
  std::uint64_t memsize = 0;
  std::uint64_t wasted = 0;  // memsize of all copies but one
  std::vector<ObjectIndex> samples;
};

// Strings with the same content (by `value`), most wasted bytes first.
std::vector<DuplicateStrings> duplicate_strings(const Heap& heap, std::size_t limit,
                                                std::size_t samples = 5);

}  // namespace heapleak
