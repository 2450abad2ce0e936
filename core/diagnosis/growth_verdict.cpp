#include "core/diagnosis/growth_verdict.h"

#include <algorithm>

#include "core/graph/dominators.h"

namespace heapleak {

std::optional<std::uint64_t> size_in_dump(const Heap& target, ObjectIndex object,
                                          const Heap& other) {
  const auto j = same_container_in(target, object, other);
  if (!j) return std::nullopt;
  if (target.length(object)) {
    const auto length = other.length(*j);
    return length ? std::optional<std::uint64_t>(*length) : std::nullopt;
  }
  const auto count = other.record_reference_count(*j);  // any holder kind, any load
  return count ? std::optional<std::uint64_t>(*count) : std::nullopt;
}

std::optional<std::uint64_t> size_in_dump(const Heap& target, ObjectIndex object,
                                          const Counterparts& other) {
  if (!other.same_container_or_thread(object)) return std::nullopt;
  if (target.length(object)) return other.length(target, object);
  return other.record_reference_count(target, object);  // any holder kind, any load
}

bool gained_after(const Counterparts& baseline, const Heap& target, ObjectIndex holder,
                  ObjectIndex entry) {
  const auto before = size_in_dump(target, holder, baseline);
  const auto now = size_in_dump(target, holder, target);
  if (before && now && *before < *now) return true;
  return !baseline.same_container(entry);
}

bool drops_entries(const Heap& target, ObjectIndex holder, const Counterparts* later) {
  return dropped_entries(target, holder, later, 1) > 0;
}

std::size_t dropped_entries(const Heap& target, ObjectIndex holder, const Counterparts* later,
                            std::size_t enough) {
  if (!later || holder == kNoObject || !target.has_edges()) return 0;
  std::size_t gone = 0;
  for (ObjectIndex y : target.references(holder))
    if (later->gone(y) && ++gone == enough) break;
  return gone;
}

std::size_t estimated_dropped_entries(const Heap& target, ObjectIndex holder,
                                      const Counterparts& later, std::size_t looks) {
  if (holder == kNoObject || !target.has_edges() || looks == 0) return 0;
  const auto refs = target.references(holder);
  if (refs.size() <= looks) return dropped_entries(target, holder, &later);
  const std::size_t step = refs.size() / looks;
  std::size_t gone = 0, looked = 0;
  for (std::size_t k = 0; k < refs.size(); k += step, ++looked) gone += later.gone(refs[k]);
  return gone * refs.size() / looked;
}

bool rebuilt_entry(const Heap& target, ObjectIndex holder, const Counterparts* later,
                   std::uint64_t retained) {
  if (!later || holder == kNoObject || !target.has_edges()) return false;
  const auto refs = target.references(holder);
  if (refs.empty()) return false;
  const ObjectIndex entry = refs.front();
  const DominatorTree& tree = target.dominators();
  if (!tree.reachable(entry) || 2 * tree.retained(entry) < retained) return false;
  if (!later->present(holder) || later->first_ref_equal(holder)) return false;
  return !later->same_container(entry);
}

bool looks_bounded(const Growth& growth) {
  if (growth.rebuilt || !growth.target || !growth.later) return false;
  const std::uint64_t b = *growth.target, c = *growth.later;
  if (c <= b) return true;
  if (growth.stack && c - b <= std::max<std::uint64_t>(8, b / 10)) return true;
  // Turning over at a cap (an LRU, a MemoryStore pruned to 75%): a fifth or
  // more of what it referenced in B is gone by C, and it grew by far less
  // than it lost (an entry is at most two references). A leak keeps what it
  // holds: 113 -> 116 -> 120 entries with 69 of B's 232 references gone is
  // a store at its cap; a leak that evicts a little keeps most.
  if (!growth.replaced && growth.dropped > 0 && 5 * growth.dropped >= b &&
      8 * (c - b) <= growth.dropped)
    return true;
  if (growth.replaced) {
    // Entries lost: a Hash's key that lives on (a shared frozen String, or
    // no object at all: a Symbol, an Integer) is not counted, its value is.
    const std::uint64_t lost = std::min<std::uint64_t>(b, growth.dropped);
    if (2 * lost >= b && c - b <= lost) return true;
  }
  if (!growth.baseline) return false;
  const std::uint64_t a = *growth.baseline;
  // A dip in B, then back near where it was: churn around a cap. A slow but
  // steady leak (10000 -> 10050 -> 10100) never dips, so it is not excused.
  const std::uint64_t top = std::max(a, b);
  const std::uint64_t tolerance = std::max<std::uint64_t>(2, top / 20);
  if (b <= a && c <= top + tolerance) return true;
  // Grew, then nearly stopped, and already dropped entries: a ring buffer or
  // an LRU that reached its cap between B and C. A leak grows as fast from B
  // to C as from A to B when the work is the same.
  return growth.drops && a < b && 4 * (c - b) <= (b - a);
}

}  // namespace heapleak
