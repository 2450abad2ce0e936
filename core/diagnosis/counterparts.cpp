#include "core/diagnosis/counterparts.h"

#include "core/heap/column_values.h"

namespace heapleak {
namespace {

// The two rules IdentityRule::between can give: both dumps traced, or not.
constexpr IdentityRule kTracedRule{true, true, false};
constexpr IdentityRule kUntracedRule{false, false, true};

bool one_sided(std::uint32_t a, std::uint32_t b) { return (a == 0) != (b == 0); }

}  // namespace

Counterparts counterparts_of(const Heap& target, const Heap& other) {
  Counterparts out;
  out.flags.assign(target.size(), 0);
  const HeapColumns& b = target.columns();
  const HeapColumns& o = other.columns();
  const SameObject same_traced(kTracedRule, target, other);
  const SameObject same_untraced(kUntracedRule, target, other);
  ObjectIndex j = 0;
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    while (j < other.size() && other.address(j) < target.address(i)) ++j;
    if (j >= other.size() || other.address(j) != target.address(i)) continue;
    std::uint8_t f = Counterparts::kPresent;
    if (same_traced(i, j)) f |= Counterparts::kSameIfTraced;
    if (same_untraced(i, j)) f |= Counterparts::kSameIfUntraced;
    if (one_sided(b.value_hash[i], o.value_hash[j]) || one_sided(b.first_ref[i], o.first_ref[j]))
      f |= Counterparts::kOneSidedContents;
    if (b.type[i] == ObjectType::kString && b.value_hash[i] == 0 && o.value_hash[j] != 0) {
      const auto refs = target.references(i);
      if (refs.size() == 1 && b.type[refs[0]] == ObjectType::kString &&
          b.value_hash[refs[0]] != 0 && b.value_hash[refs[0]] != o.value_hash[j])
        f |= Counterparts::kSharedElsewhere;
    }
    if (heapleak::same_container(target, i, other, j)) f |= Counterparts::kSameContainer;
    if (same_thread(target, i, other, j)) f |= Counterparts::kSameThread;
    if (b.first_ref[i] == o.first_ref[j]) f |= Counterparts::kFirstRefEqual;
    out.flags[i] = f;
    const std::uint32_t own = identity_length(b.type[i], b.length[i]);
    const std::uint32_t theirs = identity_length(o.type[j], o.length[j]);
    if (own != theirs || b.memsize[i] != o.memsize[j])
      out.changed.emplace(i, Counterparts::Sizes{theirs, o.memsize[j]});
  }
  out.dump = summary_of(other);
  out.rule = IdentityRule::between(target, other);
  return out;
}

std::uint32_t Counterparts::length_column(const Heap& target, ObjectIndex i) const {
  const auto it = changed.find(i);
  if (it != changed.end()) return it->second.length;
  const HeapColumns& b = target.columns();
  return b.length.empty() ? 0 : identity_length(b.type[i], b.length[i]);
}

std::optional<std::uint32_t> Counterparts::length(const Heap& target, ObjectIndex i) const {
  const std::uint32_t value = length_column(target, i);
  if (value == 0 || (value & kReferenceCountFlag)) return std::nullopt;
  return value - 1;
}

std::optional<std::uint32_t> Counterparts::record_reference_count(const Heap& target,
                                                                  ObjectIndex i) const {
  const std::uint32_t value = length_column(target, i);
  if (!(value & kReferenceCountFlag)) return std::nullopt;
  return (value & ~kReferenceCountFlag) - 1;
}

std::size_t undo_unheld_lenient_matches(const Heap& x, const Counterparts& y,
                                        std::span<char> match) {
  if (!x.has_edges() || match.size() != x.size()) return 0;
  const HeapColumns& cx = x.columns();
  const IdentityRule& rule = y.rule;
  auto lenient = [&](ObjectIndex i) {
    // Traced objects are told apart by generation; contents decide only
    // for the untraced ones (same_identity's by_contents).
    const bool by_contents =
        rule.contents || (rule.generation && (cx.generation.empty() || cx.generation[i] == 0));
    return by_contents && (y.flags[i] & Counterparts::kOneSidedContents);
  };
  std::vector<bool> is_root(x.size(), false);
  for (const auto& root : x.roots()) {
    for (ObjectIndex t : root.targets) is_root[t] = true;
  }
  std::vector<ObjectIndex> undo;
  for (ObjectIndex i = 0; i < x.size(); ++i) {
    if (!match[i] || !lenient(i)) continue;
    // A new shared String on a dead String's slot points at other bytes.
    if (y.flags[i] & Counterparts::kSharedElsewhere) {
      undo.push_back(i);
      continue;
    }
    if (is_root[i]) continue;
    bool held_by_old = false;
    for (ObjectIndex r : x.referrers(i)) {
      if (r != i && match[r]) {
        held_by_old = true;
        break;
      }
    }
    if (!held_by_old) undo.push_back(i);
  }
  for (ObjectIndex i : undo) match[i] = 0;
  return undo.size();
}

}  // namespace heapleak
