#include "core/diagnosis/counterparts.h"

#include "core/diagnosis/growth_verdict.h"
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
    if (own != theirs) out.changed.emplace(i, Counterparts::Sizes{theirs, o.memsize[j]});
  }
  out.objects = other.size();
  for (ObjectIndex k = 0; k < other.size(); ++k)
    ++out.by_type[static_cast<std::size_t>(other.type(k))];
  out.traced = other.has_allocation_info();
  out.rule = IdentityRule::between(target, other);
  out.report = other.report();
  return out;
}

}  // namespace heapleak
