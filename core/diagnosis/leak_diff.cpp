#include "core/diagnosis/leak_diff.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include "core/diagnosis/moved_objects.h"
#include "core/heap/naming.h"
#include "core/loading/load_warnings.h"

namespace heapleak {
namespace {

// Below this share of unchanged survivors between two dumps of the same
// process, objects have most likely moved (GC.compact) rather than died.
constexpr double kCompactionThreshold = 0.3;
constexpr std::size_t kMinObjectsForCompactionCheck = 1000;

bool is_live(ObjectType type) { return type != ObjectType::kNone && type != ObjectType::kMoved; }

// VM internals by type (IMEMO, ICLASS, DATA without a named class). Hidden
// (classless) Arrays and Strings are not counted here: a dump without the
// class records looks the same, and `explain` tells finalizer tables apart.
bool ranks_as_internal(const Heap& heap, ObjectIndex i) {
  switch (heap.type(i)) {
    case ObjectType::kImemo:
    case ObjectType::kIClass:
    case ObjectType::kNode:
    case ObjectType::kZombie:
    case ObjectType::kData:
      return is_vm_internal(heap, i);
    default:
      return false;
  }
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100);
  return text;
}

void check_compaction(const char* first, const char* second, std::size_t smaller,
                      std::size_t matched, double& survival, LeakDiff& diff) {
  survival = smaller == 0 ? 1.0 : static_cast<double>(matched) / static_cast<double>(smaller);
  if (smaller >= kMinObjectsForCompactionCheck && survival < kCompactionThreshold) {
    diff.compacted = true;
    diff.warnings.push_back(
        std::string("only ") + percent(survival) + " of the objects of " + first +
        " are at the same address in " + second +
        ": the dumps look compacted (GC.compact or auto_compact moved objects), "
        "so an address-based diff is unreliable");
  }
}

// What an object looks like regardless of where it sits: type, class and
// own names, value, allocation site. Compaction moves objects but keeps this.
std::uint64_t content_fingerprint(const Heap& heap, ObjectIndex i) {
  std::uint64_t h = static_cast<std::uint64_t>(heap.type(i)) * 0x9E3779B97F4A7C15ull;
  auto mix = [&h](std::uint64_t value) {
    h = (h ^ value) * 0xff51afd7ed558ccdull;
    h ^= h >> 33;
  };
  mix(std::hash<std::string_view>{}(heap.class_name(i)));
  mix(std::hash<std::string_view>{}(heap.own_name(i)));
  mix(heap.value_hash(i));
  mix(std::hash<std::string_view>{}(heap.file(i)));
  mix(heap.line(i));
  return h;
}

// The 3-dump technique by counting instead of by address: for each content
// fingerprint, B's copies beyond A's count are new, and as many of them as C
// still has beyond A's count are taken as leaked. Which copies in B those are
// cannot be known once objects move: the newest by generation when traced,
// else the highest addresses, stand for them.
std::vector<ObjectIndex> diff_by_fingerprint(const Heap& baseline, const Heap& target,
                                             const Heap* later) {
  std::unordered_map<std::uint64_t, std::int64_t> in_baseline, in_later;
  for (ObjectIndex i = 0; i < baseline.size(); ++i) {
    if (is_live(baseline.type(i))) ++in_baseline[content_fingerprint(baseline, i)];
  }
  if (later) {
    for (ObjectIndex i = 0; i < later->size(); ++i) {
      if (is_live(later->type(i))) ++in_later[content_fingerprint(*later, i)];
    }
  }
  std::unordered_map<std::uint64_t, std::vector<ObjectIndex>> in_target;
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    if (is_live(target.type(i))) in_target[content_fingerprint(target, i)].push_back(i);
  }
  std::vector<ObjectIndex> leaked;
  for (auto& [fingerprint, objects] : in_target) {
    const std::int64_t before = in_baseline.count(fingerprint) ? in_baseline[fingerprint] : 0;
    std::int64_t count = static_cast<std::int64_t>(objects.size()) - before;
    if (later) {
      const std::int64_t after = in_later.count(fingerprint) ? in_later[fingerprint] : 0;
      count = std::min(count, after - before);
    }
    if (count <= 0) continue;
    std::sort(objects.begin(), objects.end(), [&](ObjectIndex a, ObjectIndex b) {
      const auto ga = target.generation(a).value_or(0), gb = target.generation(b).value_or(0);
      return ga != gb ? ga > gb : a > b;
    });
    leaked.insert(leaked.end(), objects.begin(), objects.begin() + count);
  }
  std::sort(leaked.begin(), leaked.end());
  return leaked;
}

// What a partial compaction between B and C cost the diff, for every surface.
std::string moved_warning(const MovedObjects& moved) {
  std::string out =
      "objects moved between B and C (GC.compact or auto_compact): " +
      percent(static_cast<double>(moved.old_vanished) / static_cast<double>(moved.old_objects)) +
      " of the objects alive since A are not at their address in C, most found again "
      "elsewhere; " +
      std::to_string(moved.matched.size()) + " new objects of B were matched back";
  out += moved.later_references ? " by their content or their holder (" +
                                      std::to_string(moved.by_holder) + " by their holder)"
                                : " by their content";
  if (moved.unmatched > 0) {
    out += ", " + std::to_string(moved.unmatched) +
           " gone from their address could not be told apart and are not counted (the leak "
           "may be larger than shown)";
  }
  return out + ". heapleak-capture turns auto_compact off for its series";
}

}  // namespace

std::vector<LeakGroup> group_objects(const Heap& heap, std::span<const ObjectIndex> objects,
                                     GroupBy group_by, std::size_t samples_per_group) {
  std::vector<LeakGroup> groups;
  std::unordered_map<std::string, std::size_t> slot;
  std::vector<std::uint64_t> internal;
  for (ObjectIndex i : objects) {
    std::string key = group_key(heap, i, group_by);
    auto [it, inserted] = slot.try_emplace(key, groups.size());
    if (inserted) {
      groups.push_back(LeakGroup{std::move(key), 0, 0, {}, false});
      internal.push_back(0);
    }
    LeakGroup& group = groups[it->second];
    ++group.count;
    group.memsize += heap.memsize(i);
    if (group.samples.size() < samples_per_group) group.samples.push_back(i);
    if (ranks_as_internal(heap, i)) ++internal[it->second];
  }
  for (std::size_t k = 0; k < groups.size(); ++k)
    groups[k].vm_internal = 2 * internal[k] > groups[k].count;
  std::sort(groups.begin(), groups.end(), [](const LeakGroup& a, const LeakGroup& b) {
    if (a.vm_internal != b.vm_internal) return b.vm_internal;
    if (a.count != b.count) return a.count > b.count;
    if (a.memsize != b.memsize) return a.memsize > b.memsize;
    return a.key < b.key;
  });
  return groups;
}

IdentityMatch match_identities(const OtherDump& baseline, const Heap& target,
                               const OtherDump* later, LeakDiff& diff) {
  diff.three_way = later != nullptr;
  // A dump cut short or otherwise damaged weakens every count below: say so first.
  for (auto& warning : load_warnings(baseline.report()))
    diff.warnings.push_back(std::move(warning));
  for (auto& warning : load_warnings(target.report())) diff.warnings.push_back(std::move(warning));
  if (later) {
    for (auto& warning : load_warnings(later->report()))
      diff.warnings.push_back(std::move(warning));
  }
  const Counterparts& in_a = baseline.of_target();
  diff.rule = in_a.rule.describe();
  // What A and C say of each object of B, read off their counterparts.
  IdentityMatch match;
  std::size_t matched = 0, later_matched = 0;
  match.in_baseline.assign(target.size(), 0);
  for (ObjectIndex i = 0; i < target.size(); ++i) matched += match.in_baseline[i] = in_a.same(i);
  if (later) {
    const Counterparts& in_c = later->of_target();
    match.in_later.assign(target.size(), 0);
    for (ObjectIndex i = 0; i < target.size(); ++i)
      later_matched += match.in_later[i] = in_c.same(i);
  }
  // A slot of A reused in B by a new object whose contents only appeared
  // (counterparts.h): new, when B's edges show no old object holding it.
  undo_unheld_lenient_matches(target, in_a, match.in_baseline);
  check_compaction("A (baseline)", "B (target)",
                   std::min<std::size_t>(baseline.summary().objects, target.size()), matched,
                   diff.baseline_survival, diff);
  if (later) {
    const Counterparts& in_c = later->of_target();
    check_compaction("B (target)", "C (later)",
                     std::min<std::size_t>(target.size(), later->summary().objects), later_matched,
                     diff.later_survival, diff);
    if (in_c.rule.describe() != diff.rule) diff.rule += "; B to C: " + in_c.rule.describe();
  }
  return match;
}

void select_leaked(const OtherDump& baseline, const Heap& target, const OtherDump* later,
                   const IdentityMatch& match, LeakDiff& diff) {
  if (diff.compacted) {
    // Counted by content: the one diff that reads A's and C's objects whole.
    const auto a = baseline.heap();
    const auto c = later ? later->heap() : nullptr;
    diff.leaked = diff_by_fingerprint(*a, target, c.get());
    diff.rule =
        "content fingerprint (type+class name+value+allocation site), counted: the dumps look "
        "compacted";
    diff.warnings.push_back(
        "matched objects by content fingerprint instead of address; the counts per group are "
        "right, but which copies in B are the leaked ones cannot be told after compaction");
    return;
  }
  // Part of the heap moved between B and C: what moved is alive in C too.
  std::vector<ObjectIndex> moved_back;
  if (later) {
    const MovedObjects moved =
        find_moved_objects(target, *later, match.in_baseline, match.in_later);
    if (moved.moved) {
      diff.moved_later = true;
      diff.moved_unmatched = moved.unmatched;
      diff.moved_with_references = moved.later_references;
      moved_back = moved.matched;
      diff.warnings.push_back(moved_warning(moved));
    }
  }
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    if (!is_live(target.type(i)) || match.in_baseline[i]) continue;
    if (later && !match.in_later[i] && !std::binary_search(moved_back.begin(), moved_back.end(), i))
      continue;
    diff.leaked.push_back(i);
  }
}

void find_grown(const OtherDump& baseline, const Heap& target, const OtherDump* later,
                const IdentityMatch& match, LeakDiff& diff) {
  if (later && !diff.compacted)
    diff.grown = grown_objects(baseline.of_target(), target, later->of_target(), match.in_baseline,
                               match.in_later);
}

void group_leaked(const Heap& target, const LeakDiffOptions& options, LeakDiff& diff) {
  for (ObjectIndex i : diff.leaked) diff.total_memsize += target.memsize(i);
  diff.total_count = diff.leaked.size();
  diff.groups = group_objects(target, diff.leaked, options.group_by, options.samples_per_group);
}

DiffRoles diff_roles(std::size_t dumps) {
  DiffRoles roles;
  if (dumps >= 3) {
    roles.target = dumps - 2;
    roles.later = dumps - 1;
  }
  return roles;
}

// stats' diff: the first passes of explain's list (core/explain/explain_pipeline.cpp), in its
// order.
LeakDiff diff_other_dumps(const OtherDump& baseline, const Heap& target, const OtherDump* later,
                          const LeakDiffOptions& options) {
  LeakDiff diff;
  const IdentityMatch match = match_identities(baseline, target, later, diff);
  select_leaked(baseline, target, later, match, diff);
  find_grown(baseline, target, later, match, diff);
  group_leaked(target, options, diff);
  return diff;
}

LeakDiff diff_heaps(const Heap& baseline, const Heap& target, const Heap* later,
                    const LeakDiffOptions& options) {
  const OtherDump a(target, baseline);
  std::optional<OtherDump> c;
  if (later) c.emplace(target, *later);
  return diff_other_dumps(a, target, c ? &*c : nullptr, options);
}

}  // namespace heapleak
