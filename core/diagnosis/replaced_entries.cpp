#include "core/diagnosis/replaced_entries.h"

#include <unordered_map>
#include <unordered_set>

#include "core/diagnosis/growth_verdict.h"
#include "core/heap/record_rescan.h"

namespace heapleak {
namespace {

bool same_kind(const Heap& x, ObjectIndex i, const Heap& y, ObjectIndex j) {
  return x.type(i) == y.type(j) && x.class_name(i) == y.class_name(j);
}

// Where `entry` ranks among `owner`'s references of its type and class
// (its first occurrence), or nullopt when owner does not reference it.
std::optional<std::size_t> rank_of(const Heap& target, ObjectIndex owner, ObjectIndex entry) {
  std::size_t rank = 0;
  for (ObjectIndex y : target.references(owner)) {
    if (y == entry) return rank;
    if (same_kind(target, entry, target, y)) ++rank;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::optional<ObjectIndex>> find_replaced_entries(const Heap& target,
                                                              std::span<const EntryQuery> queries,
                                                              const Heap& other) {
  std::vector<std::optional<ObjectIndex>> out(queries.size());
  if (!target.has_edges()) return out;
  // The owners that are the same object in `other`, with the entry's rank.
  std::vector<std::optional<ObjectIndex>> owner_in_other(queries.size());
  std::vector<std::size_t> ranks(queries.size(), 0);
  std::unordered_set<Address> reread;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const auto [owner, entry] = queries[q];
    const auto rank = rank_of(target, owner, entry);
    const auto j = other.find(target.address(owner));
    if (!rank || !j || !same_container(target, owner, other, *j)) continue;
    owner_in_other[q] = j;
    ranks[q] = *rank;
    if (!other.has_edges()) reread.insert(target.address(owner));
  }
  std::unordered_map<Address, std::vector<Address>> records;
  if (!reread.empty()) {
    auto found = reread_references(other, reread);
    // The dump changed or is gone: the growth stays unknown.
    if (!found.has_value()) return out;
    records.swap(found.value());
  }
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (!owner_in_other[q]) continue;
    std::vector<ObjectIndex> held;
    if (other.has_edges()) {
      const auto refs = other.references(*owner_in_other[q]);
      held.assign(refs.begin(), refs.end());
    } else if (auto it = records.find(target.address(queries[q].owner)); it != records.end()) {
      for (Address a : it->second)
        if (auto y = other.find(a)) held.push_back(*y);
    }
    std::size_t rank = 0;
    std::unordered_set<ObjectIndex> seen;  // ranks count each object once, as the target's edges do
    for (ObjectIndex y : held) {
      if (!seen.insert(y).second) continue;
      if (!same_kind(target, queries[q].entry, other, y)) continue;
      if (rank++ == ranks[q]) {
        out[q] = y;
        break;
      }
    }
  }
  return out;
}

}  // namespace heapleak
