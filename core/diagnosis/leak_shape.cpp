#include "core/diagnosis/leak_shape.h"

#include <algorithm>
#include <map>

#include "core/diagnosis/growth_verdict.h"
#include "core/diagnosis/identity.h"
#include "core/graph/root_paths.h"
#include "core/heap/naming.h"
#include "core/heap/naming_runtime.h"

namespace heapleak {
namespace {

bool is_ractor(const Heap& heap, ObjectIndex i) {
  return heap.type(i) == ObjectType::kData &&
         (heap.class_name(i) == "Ractor" || heap.own_name(i) == "ractor");
}

// An object the program made and would name: an instance of one of its
// classes (not a String, Array, Hash or Proc, which VM bookkeeping makes too).
bool is_program_object(const Heap& heap, ObjectIndex i) {
  if (is_vm_internal(heap, i)) return false;
  switch (heap.type(i)) {
    case ObjectType::kObject:
    case ObjectType::kStruct:
      return true;
    case ObjectType::kData:
      return !is_proc(heap, i) && !is_thread(heap, i) && heap.own_name(i) != "VM/env";
    default:
      return false;
  }
}

// "ThreadPoolApp::QuoteJob, Hash, BigDecimal": the commonest Ruby classes of
// `objects` that pass `keep`, most first.
template <typename Keep>
std::string commonest_classes(const Heap& heap, const std::vector<ObjectIndex>& objects,
                              std::size_t most, Keep keep) {
  std::map<std::string, std::uint64_t> count;
  for (ObjectIndex i : objects) {
    if (keep(i)) ++count[ruby_name(heap, i)];
  }
  std::vector<std::pair<std::string, std::uint64_t>> ranked(count.begin(), count.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (std::size_t k = 0; k < ranked.size() && k < most; ++k)
    out += (k ? ", " : "") + ranked[k].first;
  return out;
}

std::string plural(std::uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// Steady growth, as a leak grows: C gained at least half of what B gained.
// Code loaded on first use grows A -> B and (almost) stops.
bool grows_steadily(const Growth& g) {
  if (!g.baseline || !g.target || !g.later || *g.later <= *g.target) return false;
  const std::uint64_t first = *g.target > *g.baseline ? *g.target - *g.baseline : 0;
  return 2 * (*g.later - *g.target) >= first;
}

std::optional<ShapeVerdict> threads_verdict(const Heap& heap, const LeakCluster& cluster) {
  std::uint64_t threads = 0;
  for (ObjectIndex i : cluster.objects) threads += is_thread(heap, i);
  if (threads == 0) return std::nullopt;
  const std::string held = commonest_classes(heap, cluster.objects, 3, [&](ObjectIndex i) {
    return !is_vm_internal(heap, i) && !is_thread(heap, i) && !is_proc(heap, i) &&
           heap.type(i) != ObjectType::kString;
  });
  const std::string holding = held.empty() ? "" : ", each holding " + held;
  // A framework starts its threads once (a pool, a reaper): their number
  // stops growing. Threads started per job and never finished keep growing.
  const Growth& g = cluster.growth;
  if (g.target && g.later && *g.later <= *g.target)
    return ShapeVerdict{NoiseReason::kBounded,
                        plural(threads, "Thread", "Threads") + " started between A and B" + holding,
                        std::nullopt};
  return ShapeVerdict{NoiseReason::kNone,
                      plural(threads, "Thread", "Threads") + " never finished" + holding,
                      std::nullopt};
}

std::optional<ShapeVerdict> finalizer_verdict(const Heap& heap, const LeakCluster& cluster) {
  // The registered objects themselves, reached only through their finalizer.
  // Only the finalizers' own Procs and hidden Arrays: the objects they
  // finalize are held elsewhere (or gone): collateral, not the leak.
  std::map<std::string, std::uint64_t> kept;
  for (ObjectIndex i : cluster.objects)
    if (is_program_object(heap, i)) ++kept[ruby_name(heap, i)];
  if (kept.empty()) return std::nullopt;
  const auto most = std::max_element(
      kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return ShapeVerdict{NoiseReason::kNone,
                      plural(most->second, most->first + " object", most->first + " objects") +
                          " kept alive by their own finalizer",
                      std::nullopt};
}

std::optional<ShapeVerdict> runtime_code_verdict(const Heap& heap, const LeakCluster& cluster,
                                                 const std::string& holder) {
  std::uint64_t classes = 0, methods = 0;
  for (ObjectIndex i : cluster.objects) {
    const ObjectType type = heap.type(i);
    if ((type == ObjectType::kClass || type == ObjectType::kModule) &&
        class_family(heap, i) != "singleton classes")
      ++classes;
    else if (type == ObjectType::kImemo && heap.own_name(i) == "ment")
      ++methods;
  }
  if (classes == 0 && methods == 0) return std::nullopt;
  // Code loaded once (autoload on first use) is noise; a module that keeps
  // gaining classes or methods as the program runs is a leak.
  if (!grows_steadily(cluster.growth)) return std::nullopt;
  if (classes > 0)
    return ShapeVerdict{NoiseReason::kNone,
                        plural(classes, "class", "classes") + " defined at run time in " + holder,
                        std::nullopt};
  return ShapeVerdict{NoiseReason::kNone,
                      plural(methods, "method", "methods") + " defined at run time in " + holder,
                      std::nullopt};
}

std::uint64_t count_of_type(const Heap& heap, ObjectType type) {
  std::uint64_t n = 0;
  for (ObjectIndex i = 0; i < heap.size(); ++i) n += heap.type(i) == type;
  return n;
}

// The module inclusions (ICLASS records) between a class and its superclass
// in B: each prepended or included module is one, walked from the class
// through the first ICLASS each one references (its superclass pointer).
std::uint64_t own_ancestor_chain(const Heap& heap, ObjectIndex klass) {
  std::uint64_t length = 0;
  for (ObjectIndex y = klass; length < (1u << 24);) {
    ObjectIndex next = kNoObject;
    for (ObjectIndex r : heap.references(y))
      if (heap.type(r) == ObjectType::kIClass) {
        next = r;
        break;
      }
    if (next == kNoObject) break;
    ++length;
    y = next;
  }
  return length;
}

// Modules prepended or included into a class at run time: `Klass.prepend(
// Module.new { ... })` per job grows its ancestor chain forever, and keeps
// what each module's methods captured. Code loaded once adds its inclusions
// between A and B and stops; a chain that keeps growing from B to C (the
// heap's inclusions grow as fast as from A to B) is a leak. Its growth is
// the chain: in B walked, in A without this row's new inclusions, in C
// with the heap's new inclusions since B (A and C have no references).
std::optional<ShapeVerdict> prepended_verdict(const Counterparts& baseline, const Heap& target,
                                              const Counterparts* later, const LeakCluster& cluster,
                                              const std::string& holder) {
  if (!later || target.type(cluster.holder) != ObjectType::kClass) return std::nullopt;
  std::uint64_t inclusions = 0;
  for (ObjectIndex i : cluster.objects) inclusions += target.type(i) == ObjectType::kIClass;
  if (inclusions == 0) return std::nullopt;
  const std::uint64_t a = baseline.dump.count_of(ObjectType::kIClass);
  const std::uint64_t b = count_of_type(target, ObjectType::kIClass);
  const std::uint64_t c = later->dump.count_of(ObjectType::kIClass);
  if (!grows_steadily(Growth{"", a, b, c})) return std::nullopt;
  const std::uint64_t chain = own_ancestor_chain(target, cluster.holder);
  Growth growth{"ancestors", chain - std::min(chain, inclusions), chain, chain + (c - b)};
  return ShapeVerdict{NoiseReason::kNone,
                      plural(inclusions, "module", "modules") + " prepended or included at run " +
                          "time into " + holder,
                      growth};
}

// A holder that did not grow may still hold a container made after A that
// does (an ivar reassigned to a new Hash that fills up): its growth is the
// holder's.
bool gained_container_grows(const Counterparts& baseline, const Heap& target,
                            const Counterparts* later, const LeakCluster& cluster) {
  if (!later || cluster.holder == kNoObject || !target.has_edges()) return false;
  std::size_t looked = 0;
  for (ObjectIndex r : target.references(cluster.holder)) {
    if (++looked > 4096) break;  // a huge holder: its own size says enough
    if (!std::binary_search(cluster.objects.begin(), cluster.objects.end(), r)) continue;
    if (!gained_after(baseline, target, cluster.holder, r)) continue;  // its first entry changed
    const auto before = target.length(r);
    if (!before) continue;
    if (!later->present(r) || !later->same(r)) continue;
    const auto after = later->length(target, r);
    if (after && *after > *before) return true;
  }
  return false;
}

}  // namespace

std::optional<ShapeVerdict> judge_shape(const Counterparts& baseline, const Heap& target,
                                        const Counterparts* later, const LeakCluster& cluster) {
  if (cluster.holder == kNoObject) {
    if (root_kind(cluster.reach.root) == RootKind::kFinalizer)
      return finalizer_verdict(target, cluster);
    return std::nullopt;
  }
  if (is_ractor(target, cluster.holder)) return threads_verdict(target, cluster);
  const ObjectType type = target.type(cluster.holder);
  if (type == ObjectType::kClass || type == ObjectType::kModule) {
    const std::string holder = ruby_name(target, cluster.holder);
    if (auto verdict = prepended_verdict(baseline, target, later, cluster, holder)) return verdict;
    return runtime_code_verdict(target, cluster, holder);
  }
  const Growth& g = cluster.growth;
  if (g.target && g.later && *g.later <= *g.target &&
      gained_container_grows(baseline, target, later, cluster))
    return ShapeVerdict{};
  return std::nullopt;
}

std::string block_of(const Heap& target, const LeakCluster& cluster) {
  if (cluster.holder != kNoObject && is_proc(target, cluster.holder))
    return block_origin(target, cluster.holder);
  // The Procs nearest the holder are the program's (a subscriber's block);
  // deeper ones belong to what it captured (a request's default procs).
  const RootPaths& paths = target.root_paths();
  const auto leaked = [&](ObjectIndex y) {
    return std::binary_search(cluster.objects.begin(), cluster.objects.end(), y);
  };
  constexpr std::size_t kMaxProcs = 256, kMaxDepth = 32;
  std::vector<std::pair<std::size_t, ObjectIndex>> procs;  // (leaked hops above, proc)
  for (ObjectIndex i : cluster.objects) {
    if (!is_proc(target, i)) continue;
    if (procs.size() == kMaxProcs) break;
    std::size_t depth = 0;
    for (ObjectIndex y = i; depth < kMaxDepth && paths.reachable(y); ++depth) {
      const ObjectIndex parent = paths.parent(y);
      if (parent == kNoObject || !leaked(parent)) break;
      y = parent;
    }
    procs.emplace_back(depth, i);
  }
  std::stable_sort(procs.begin(), procs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // The commonest origin among the nearest few (a few record reads each).
  std::map<std::string, std::uint64_t> origins;
  for (std::size_t k = 0; k < procs.size() && k < 8; ++k) {
    if (procs[k].first != procs.front().first) break;
    if (std::string origin = block_origin(target, procs[k].second); !origin.empty())
      ++origins[origin];
  }
  std::string best;
  std::uint64_t most = 0;
  for (const auto& [origin, n] : origins)
    if (n > most) best = origin, most = n;
  return best;
}

}  // namespace heapleak
