#include "core/leak_diff.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

namespace heapleak {
namespace {

// Below this share of unchanged survivors between two dumps of the same
// process, objects have most likely moved (GC.compact) rather than died.
constexpr double kCompactionThreshold = 0.3;
constexpr std::size_t kMinObjectsForCompactionCheck = 1000;

bool is_live(ObjectType type) { return type != ObjectType::kNone && type != ObjectType::kMoved; }

// For each object of `from`, the matching object of `to` at the same address
// (same_object), or kNoObject. A linear merge: both heaps are sorted.
std::vector<ObjectIndex> match_by_address(const Heap& from, const Heap& to, const IdentityRule& rule,
                                          std::size_t& matched) {
  std::vector<ObjectIndex> match(from.size(), kNoObject);
  matched = 0;
  ObjectIndex j = 0;
  for (ObjectIndex i = 0; i < from.size(); ++i) {
    while (j < to.size() && to.address(j) < from.address(i)) ++j;
    if (j < to.size() && to.address(j) == from.address(i) && same_object(rule, from, i, to, j)) {
      match[i] = j;
      ++matched;
    }
  }
  return match;
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100);
  return text;
}

void check_compaction(const char* first, const char* second, std::size_t smaller, std::size_t matched,
                      double& survival, LeakDiff& diff) {
  survival = smaller == 0 ? 1.0 : static_cast<double>(matched) / static_cast<double>(smaller);
  if (smaller >= kMinObjectsForCompactionCheck && survival < kCompactionThreshold) {
    diff.compacted = true;
    diff.warnings.push_back(std::string("only ") + percent(survival) + " of the objects of " + first +
                            " are at the same address in " + second +
                            ": the dumps look compacted (GC.compact or auto_compact moved objects), "
                            "so an address-based diff is unreliable");
  }
}

}  // namespace

std::vector<LeakGroup> group_objects(const Heap& heap, std::span<const ObjectIndex> objects,
                                     GroupBy group_by, std::size_t samples_per_group) {
  std::vector<LeakGroup> groups;
  std::unordered_map<std::string, std::size_t> slot;
  for (ObjectIndex i : objects) {
    std::string key = group_key(heap, i, group_by);
    auto [it, inserted] = slot.try_emplace(key, groups.size());
    if (inserted) groups.push_back(LeakGroup{std::move(key), 0, 0, {}});
    LeakGroup& group = groups[it->second];
    ++group.count;
    group.memsize += heap.memsize(i);
    if (group.samples.size() < samples_per_group) group.samples.push_back(i);
  }
  std::sort(groups.begin(), groups.end(), [](const LeakGroup& a, const LeakGroup& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.memsize != b.memsize) return a.memsize > b.memsize;
    return a.key < b.key;
  });
  return groups;
}

LeakDiff diff_heaps(const Heap& baseline, const Heap& target, const Heap* later,
                    const LeakDiffOptions& options) {
  LeakDiff diff;
  diff.three_way = later != nullptr;
  const IdentityRule old_rule = IdentityRule::between(baseline, target);
  diff.rule = old_rule.describe();

  std::size_t matched = 0;
  const auto in_baseline = match_by_address(target, baseline, old_rule, matched);
  check_compaction("A (baseline)", "B (target)", std::min(baseline.size(), target.size()), matched,
                   diff.baseline_survival, diff);

  std::vector<ObjectIndex> in_later;
  if (later) {
    const IdentityRule new_rule = IdentityRule::between(target, *later);
    in_later = match_by_address(target, *later, new_rule, matched);
    check_compaction("B (target)", "C (later)", std::min(target.size(), later->size()), matched,
                     diff.later_survival, diff);
    if (new_rule.describe() != diff.rule) diff.rule += "; B to C: " + new_rule.describe();
  }

  for (ObjectIndex i = 0; i < target.size(); ++i) {
    if (!is_live(target.type(i)) || in_baseline[i] != kNoObject) continue;
    if (later && in_later[i] == kNoObject) continue;
    diff.leaked.push_back(i);
    diff.total_memsize += target.memsize(i);
  }
  diff.total_count = diff.leaked.size();
  diff.groups = group_objects(target, diff.leaked, options.group_by, options.samples_per_group);
  return diff;
}

}  // namespace heapleak
