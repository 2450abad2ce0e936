#include "core/diagnosis/leak_clusters.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/diagnosis/born_holders.h"
#include "core/diagnosis/capture_own.h"
#include "core/diagnosis/growth_verdict.h"
#include "core/diagnosis/identity.h"
#include "core/diagnosis/later_holders.h"
#include "core/diagnosis/leak_shape.h"
#include "core/diagnosis/replaced_entries.h"
#include "core/graph/dominators.h"
#include "core/heap/naming.h"
#include "core/heap/naming_runtime.h"

namespace heapleak {
namespace {

constexpr ObjectIndex kUnset = kNoObject;
// Markers in the holder memo for leaked objects with no pre-existing
// ancestor: reached straight from a root target (category in the low bits)
// or not reachable at all.
constexpr ObjectIndex kRootHeld = 0xFFFE0000u;
constexpr ObjectIndex kUnreachableMark = 0xFFFDFFFFu;
// Leaked objects under an old String: the buffer it now shares.
constexpr ObjectIndex kSharedStringMark = 0xFFFDFFFEu;
// Leaked objects whose holders in B are all gone by C (later_holders.h).
constexpr ObjectIndex kTransientMark = 0xFFFDFFFDu;
static_assert(kTransientMark >= kFirstHolderMark && kUnreachableMark >= kFirstHolderMark);

bool is_root_held(ObjectIndex value) { return value >= kRootHeld && value != kUnset; }

// For every leaked object, the first non-leaked object above it on its
// shortest root path, memoised along each chain so a leaked linked list is
// walked once.
Column<ObjectIndex> holders(const Heap& heap, std::span<const char> leaked,
                            const std::vector<ObjectIndex>& objects) {
  const RootPaths& paths = heap.root_paths();
  Column<ObjectIndex> memo(heap.size(), kUnset);
  std::vector<ObjectIndex> chain;
  for (ObjectIndex x : objects) {
    chain.clear();
    ObjectIndex y = x;
    ObjectIndex answer = kUnset;
    for (;;) {
      if (memo[y] != kUnset) {
        answer = memo[y];
        break;
      }
      chain.push_back(y);
      if (!paths.reachable(y)) {
        answer = kUnreachableMark;
        break;
      }
      const ObjectIndex parent = paths.parent(y);
      if (parent == kNoObject) {
        answer = kRootHeld + static_cast<ObjectIndex>(paths.root_category(y));
        break;
      }
      if (!leaked[parent]) {
        answer = parent;
        break;
      }
      y = parent;
    }
    for (ObjectIndex z : chain) memo[z] = answer;
  }
  return memo;
}

// A hidden or VM holder is passed over for the first Ruby-visible object
// above it, which Ruby code can name; the internals become hops.
ObjectIndex visible_holder(const Heap& heap, ObjectIndex holder, std::vector<ObjectIndex>& hops) {
  const RootPaths& paths = heap.root_paths();
  std::vector<ObjectIndex> seen;
  for (ObjectIndex y = holder; y != kNoObject; y = paths.parent(y)) {
    // A 4.0 fields object is part of its owner: the owner holds, no hop.
    if (const ObjectIndex owner = fields_owner(heap, y); owner != kNoObject) {
      std::reverse(seen.begin(), seen.end());
      hops = std::move(seen);
      return owner;
    }
    if (!is_vm_internal(heap, y)) {
      std::reverse(seen.begin(), seen.end());
      hops = std::move(seen);
      return y;
    }
    seen.push_back(y);
  }
  return holder;  // internals all the way up: keep the first
}

// Leaked objects that another leaked object dominates count in that one's
// row only, so a row's retained bytes are the retained sizes of its leaked
// objects not dominated by any leaked object (memoised along idom chains).
// One byte per object holds both the memo and the answer (kCoveredByLeak):
// two arrays were 12 MB at explain's peak on syn1700.
constexpr std::uint8_t kMemoKnown = 1;      // memo set: ...
constexpr std::uint8_t kMemoLeakAbove = 2;  // ... y or some dominator of y is leaked
constexpr std::uint8_t kCoveredByLeak = 4;  // some strict dominator of x is leaked
Column<std::uint8_t> dominated_by_leak(const Heap& heap, std::span<const char> leaked,
                                       const std::vector<ObjectIndex>& objects) {
  const DominatorTree& tree = heap.dominators();
  Column<std::uint8_t> state(heap.size(), 0);
  std::vector<ObjectIndex> chain;
  for (ObjectIndex x : objects) {
    if (!tree.reachable(x)) continue;
    chain.clear();
    bool found = false;
    for (ObjectIndex y = tree.idom(x);; y = tree.idom(y)) {
      if (y == DominatorTree::kSuperRoot || y == kNoObject) break;
      if (state[y] & kMemoKnown) {
        found = state[y] & kMemoLeakAbove;
        break;
      }
      chain.push_back(y);
      if (leaked[y]) {
        found = true;
        break;
      }
    }
    for (ObjectIndex y : chain) state[y] |= kMemoKnown | (found ? kMemoLeakAbove : 0);
    if (found) state[x] |= kCoveredByLeak;
  }
  return state;
}

std::string sanitized(std::string text) {
  // Addresses differ between runs: the signature must not see them.
  for (std::size_t at = text.find("0x"); at != std::string::npos; at = text.find("0x", at + 3)) {
    std::size_t end = at + 2;
    while (end < text.size() && std::isxdigit(static_cast<unsigned char>(text[end]))) ++end;
    text.replace(at, end - at, "0x?");
  }
  return text;
}

std::string hex64(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string signature_of(const LeakCluster& cluster, const std::string& holder_name) {
  // Below a named class or module, the path says where the leak is; above
  // it, only how the GC happened to reach that class this time: through
  // Object and its constants, straight from a VM table, or from a word on
  // the machine stack (a different root on every run). The class's name is
  // the anchor: the path is hashed from there, without the root category.
  std::size_t from = 0;
  std::string root = cluster.reach.root;
  if (cluster.reach.kind == "class" || cluster.reach.kind == "module") {
    for (std::size_t k = cluster.path_names.size(); k-- > 0;) {
      if (cluster.path_names[k] == cluster.reach.name) {
        from = k;
        root.clear();
        break;
      }
    }
  }
  std::string input = "holder=" + holder_name + ";reach=" + cluster.reach.kind + ":" +
                      cluster.reach.name + ";root=" + root + ";path=";
  for (std::size_t k = from; k < cluster.path_names.size(); ++k)
    input += cluster.path_names[k] + ">";
  // The objects' biggest class tells apart only rows with no holder (two
  // leaks straight off one root); with a holder, the class-level path is
  // the leak, and the biggest class of one instance is a tie broken by chance.
  if (cluster.holder == kNoObject && !cluster.classes.empty())
    input += ";objects=" + cluster.classes.front().key;
  input = sanitized(std::move(input));
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a: stable across builds and runs
  for (unsigned char c : input) h = (h ^ c) * 0x100000001b3ull;
  return hex64(h);
}

Reach reach_of(const Heap& heap, const LeakCluster& cluster, const std::string& root,
               const std::vector<EdgeName>& vias) {
  Reach reach{"root", root, root, ""};
  const auto& path = cluster.path.path;
  for (std::size_t k = path.size(); k-- > 0;) {
    const ObjectIndex y = path[k];
    const ObjectType type = heap.type(y);
    if ((type == ObjectType::kClass || type == ObjectType::kModule) && !heap.own_name(y).empty()) {
      // The ivar of the class that holds the next object, when the dump names it exactly.
      std::string ivar;
      if (k + 1 < vias.size() && vias[k + 1].kind == EdgeName::Kind::kExact &&
          vias[k + 1].names.size() == 1)
        ivar = vias[k + 1].names.front();
      const std::string_view own = heap.own_name(y);
      return Reach{type == ObjectType::kClass ? "class" : "module",
                   is_address_name(own) ? class_label(heap, y) : std::string(own), root, ivar};
    }
    if (type == ObjectType::kData && heap.class_name(y) == "Thread") {
      return Reach{"thread", "Thread " + format_address(heap.address(y)), root, ""};
    }
  }
  if (root_kind(root) == RootKind::kGlobal) {
    reach.kind = "global";  // the dump does not name the variable
    reach.name = "a global variable";
  }
  return reach;
}

// `moved`: part of the heap moved between B and C, so an entry of B missing
// from its address in C may be alive elsewhere: turnover cannot be counted.
Growth growth_of(const Counterparts& baseline, const Heap& target, const Counterparts* later,
                 ObjectIndex holder, bool moved) {
  Growth growth;
  if (holder == kNoObject) return growth;
  const bool by_length = target.length(holder).has_value();
  // An object's references are its instance variables' values: say so.
  growth.field = !by_length && target.type(holder) == ObjectType::kObject ? "instance variables"
                 : !by_length                                             ? "references"
                 : target.type(holder) == ObjectType::kHash               ? "size"
                 : target.type(holder) == ObjectType::kString             ? "bytesize"
                                                                          : "length";
  // Read as a series over N dumps reads it (series_growth.h): by the same
  // container at the holder's address, an LRU that evicted its first key
  // still being the LRU, so that "bounded" can fire.
  growth.stack = !by_length && target.type(holder) == ObjectType::kData &&
                 (target.class_name(holder) == "Thread" || target.class_name(holder) == "Fiber");
  growth.target = size_in_dump(target, holder, target);
  growth.baseline = size_in_dump(target, holder, baseline);
  if (later) growth.later = size_in_dump(target, holder, *later);
  // Whether it evicts matters only to a growth that slowed down: look then only
  // (a look is a random read per reference of the holder).
  const auto& [a, b, c] = std::tie(growth.baseline, growth.target, growth.later);
  if (a && b && c && *a < *b && *b < *c && 4 * (*c - *b) <= *b - *a)
    growth.drops = drops_entries(target, holder, later);
  // A store at its cap turns its entries over while it stays near its size:
  // how many of B's are gone by C tells it from a leak, which keeps them
  // (looks_bounded). Counted only for a holder that grew at all.
  if (b && c && *b < *c && by_length && !moved) {
    growth.dropped = estimated_dropped_entries(target, holder, *later);
    growth.drops = growth.dropped > 0;
  }
  return growth;
}

bool is_inline_cache(const Heap& heap, ObjectIndex i) {
  if (heap.type(i) != ObjectType::kImemo) return false;
  const std::string_view kind = heap.own_name(i);
  return kind == "callcache" || kind == "constcache" || kind == "callinfo" || kind == "cref" ||
         kind == "ment";
}

bool traced_by_objspace(const Heap& heap, ObjectIndex i) {
  const std::string_view file = heap.file(i);
  return file.ends_with("/objspace.rb") || file.ends_with("/objspace/trace.rb");
}

// ObjectSpace.trace_object_allocations' own objects: its table (a DATA
// record) and the TracePoints it hooks, made when tracing starts.
bool is_allocation_tracer(const Heap& heap, ObjectIndex i) {
  return heap.type(i) == ObjectType::kData &&
         (heap.own_name(i) == "ObjectTracing/allocation_info_tracer" ||
          heap.class_name(i) == "TracePoint");
}

// The holder is the table of a store that evicts at a size it was given
// (ActiveSupport's MemoryStore prunes to 75% of `size:`, 32 MB by default;
// lru_redux's caches drop their oldest past `max_size`): bounded by design,
// even in a window of three dumps where it was still filling up (145 -> 172
// -> 196, nothing evicted yet) or refilled after a prune (169 -> 156 -> 184).
// Its cap is an Integer ivar, which no dump records.
bool in_capped_store(const Heap& heap, const LeakCluster& cluster) {
  const auto capped = [&](ObjectIndex i) {
    const std::string_view name = heap.class_name(i);
    return name == "ActiveSupport::Cache::MemoryStore" || name == "LruRedux::Cache" ||
           name == "LruRedux::ThreadSafeCache" || name == "LruRedux::TTL::Cache" ||
           name == "LruRedux::TTL::ThreadSafeCache";
  };
  // The store itself, or its table (the holder's owner on its path).
  const auto& path = cluster.path.path;
  if (cluster.holder == kNoObject || path.empty() || path.back() != cluster.holder) return false;
  return capped(cluster.holder) || (path.size() >= 2 && capped(path[path.size() - 2]));
}

NoiseReason classify(const Heap& heap, const LeakCluster& cluster) {
  if (cluster.reach.root.empty() && cluster.holder == kNoObject) return NoiseReason::kUnreachable;
  // New classes, modules or compiled methods under a class: code loaded.
  if (cluster.holder != kNoObject && (heap.type(cluster.holder) == ObjectType::kClass ||
                                      heap.type(cluster.holder) == ObjectType::kModule)) {
    for (ObjectIndex i : cluster.objects) {
      const ObjectType type = heap.type(i);
      if (type == ObjectType::kClass || type == ObjectType::kModule ||
          type == ObjectType::kIClass ||
          (type == ObjectType::kImemo &&
           (heap.own_name(i) == "iseq" || heap.own_name(i) == "ment")))
        return NoiseReason::kCodeLoaded;
    }
  }
  if (root_kind(cluster.reach.root) == RootKind::kFinalizer) return NoiseReason::kFinalizerTable;
  const auto all = [&](auto predicate) {
    return std::all_of(cluster.objects.begin(), cluster.objects.end(),
                       [&](ObjectIndex i) { return predicate(heap, i); });
  };
  if (all(traced_by_objspace) || all(is_allocation_tracer)) return NoiseReason::kAllocationTracer;
  // Reached through the tracer (its table holds what it records): the tracer's.
  if (cluster.holder != kNoObject && is_allocation_tracer(heap, cluster.holder))
    return NoiseReason::kAllocationTracer;
  for (ObjectIndex y : cluster.path.path)
    if (is_allocation_tracer(heap, y)) return NoiseReason::kAllocationTracer;
  if (all(is_inline_cache)) return NoiseReason::kInlineCache;
  if (all(is_vm_internal)) return NoiseReason::kVmInternal;
  if (cluster.holder != kNoObject && is_vm_internal(heap, cluster.holder))
    return NoiseReason::kVmInternal;
  // Straight off a GC root, mostly compiled code (method entries, inline
  // caches, iseqs) with the arrays and strings it owns: code defined or run
  // for the first time between A and B.
  if (cluster.holder == kNoObject) {
    std::size_t code = 0, caches = 0;
    for (ObjectIndex i : cluster.objects) {
      if (heap.type(i) == ObjectType::kImemo && heap.own_name(i) != "env") ++code;
      if (is_inline_cache(heap, i)) ++caches;
    }
    if (2 * code >= cluster.objects.size())
      return 2 * caches >= cluster.objects.size() ? NoiseReason::kInlineCache
                                                  : NoiseReason::kVmInternal;
  }
  // Reached through compiled code (method bodies, their literals): code
  // loaded between A and B, not data the program accumulates.
  for (ObjectIndex hop : cluster.hops) {
    if (heap.type(hop) == ObjectType::kImemo && heap.own_name(hop) != "env")
      return NoiseReason::kVmInternal;
  }
  // Held only from the machine stack (root paths seed it last): a C local
  // of the code running at the dump, unless what it points at keeps growing.
  const Growth& g = cluster.growth;
  if (root_kind(cluster.reach.root) == RootKind::kMachineStack &&
      !(g.target && g.later && *g.later > *g.target))
    return NoiseReason::kMachineStack;
  if (looks_bounded(cluster.growth)) return NoiseReason::kBounded;
  if (in_capped_store(heap, cluster)) return NoiseReason::kBounded;
  return NoiseReason::kNone;
}

std::string label_of(const LeakCluster& cluster, const std::string& holder_name) {
  if (cluster.noise == NoiseReason::kSharedString) return "buffers of strings that became shared";
  if (cluster.noise == NoiseReason::kTransientHolder) return "held in B only (holders gone by C)";
  if (cluster.holder == kNoObject) {
    return cluster.reach.root.empty() ? "unreachable objects"
                                      : "held by " + root_label(cluster.reach.root);
  }
  // The ivar that holds the holder, when the dump names it exactly, says
  // most: "Array in Registry.@sets" (path_names' entry for the parent).
  const auto& vias = cluster.vias;
  if (!vias.empty() && vias.back().kind == EdgeName::Kind::kExact &&
      vias.back().names.size() == 1 && cluster.path_names.size() >= 2)
    return holder_name + " in " + cluster.path_names[cluster.path_names.size() - 2];
  if (cluster.reach.kind == "root")
    return holder_name + " (" + root_label(cluster.reach.root) + ")";
  if (cluster.reach.name == holder_name) return holder_name;
  const std::string ivar = cluster.reach.ivar.empty() ? "" : "." + cluster.reach.ivar;
  return holder_name + " in " + cluster.reach.name + ivar;
}

ObjectIndex growth_object(const LeakCluster& cluster) {
  return cluster.hops.empty() ? cluster.holder : cluster.hops.back();
}

// How Ruby reaches `cluster`'s holder: path, vias, reach, path names.
// Returns the holder's name (empty without a holder).
std::string place(const Heap& target, LeakCluster& cluster, EdgeNameMemo& via_memo) {
  std::string holder_name;
  std::string root = cluster.reach.root;
  if (cluster.holder != kNoObject) {
    cluster.path = target.root_paths().path_to(target, cluster.holder);
    root = cluster.path.root;
    const ObjectType holder_type = target.type(cluster.holder);
    holder_name = holder_type == ObjectType::kClass || holder_type == ObjectType::kModule
                      ? class_label(target, cluster.holder)
                      : ruby_name(target, cluster.holder);
    cluster.vias = path_vias(target, cluster.path.path, &via_memo);
    cluster.reach = reach_of(target, cluster, root, cluster.vias);
  }
  cluster.path_names = path_names(target, root, cluster.path.path, cluster.vias);
  return holder_name;
}

}  // namespace

void find_holders(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows) {
  rows.leaked.assign(dumps.target.size(), 0);
  for (ObjectIndex i : diff.leaked) rows.leaked[i] = 1;
  rows.holder_of = holders(dumps.target, rows.leaked, diff.leaked);
}

void apply_later_holders(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows) {
  if (!dumps.later) return;
  keep_holders_alive_in_later(dumps.baseline.of_target(), dumps.target, dumps.later->of_target(),
                              rows.leaked, diff.leaked, rows.holder_of, kTransientMark);
}

void apply_born_holders(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows) {
  if (!dumps.later) return;
  adopt_born_holders(dumps.baseline.of_target(), dumps.target, dumps.later->of_target(),
                     rows.leaked, diff.leaked, rows.holder_of, kFirstHolderMark);
}

void group_by_holder(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows) {
  const Heap& target = dumps.target;
  // By holder (or by root category / unreachable), in address order.
  std::map<ObjectIndex, std::vector<ObjectIndex>> by_anchor;
  for (ObjectIndex i : diff.leaked) by_anchor[rows.holder_of[i]].push_back(i);
  for (auto& [anchor, objects] : by_anchor) {
    LeakCluster cluster;
    ObjectIndex merge_key = anchor;
    if (anchor == kUnreachableMark) {
      cluster.reach = Reach{"root", "(not reachable)", "", ""};  // root stays empty
    } else if (anchor == kTransientMark) {
      cluster.reach = Reach{"root", "(held in B only)", "", ""};
      cluster.noise = NoiseReason::kTransientHolder;
    } else if (anchor != kUnset && !is_root_held(anchor) &&
               target.type(anchor) == ObjectType::kString) {
      merge_key = kSharedStringMark;
      cluster.noise = NoiseReason::kSharedString;
    } else if (is_root_held(anchor)) {
      cluster.reach = Reach{"root", target.roots()[anchor - kRootHeld].name,
                            target.roots()[anchor - kRootHeld].name, ""};
    } else {
      cluster.holder = visible_holder(target, anchor, cluster.hops);
      merge_key = cluster.holder;
    }
    auto [it, inserted] = rows.rows.try_emplace(
        {merge_key, cluster.hops.empty() ? kNoObject : cluster.hops.front()}, std::move(cluster));
    auto& members = it->second.objects;
    members.insert(members.end(), objects.begin(), objects.end());
  }
  for (auto& [anchor, cluster] : rows.rows) {
    std::sort(cluster.objects.begin(), cluster.objects.end());
    cluster.count = cluster.objects.size();
  }
  // Read by no later pass: 4 bytes per object of B freed before the sizes
  // pass's own array (24 MB of explain's peak on syn1700).
  rows.holder_of = Column<ObjectIndex>();
}

void measure_rows(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows) {
  const Heap& target = dumps.target;
  const Column<std::uint8_t> covered = dominated_by_leak(target, rows.leaked, diff.leaked);
  const DominatorTree& tree = target.dominators();
  for (auto& [anchor, cluster] : rows.rows) {
    std::vector<ObjectIndex> reachable;
    for (ObjectIndex i : cluster.objects) {
      cluster.memsize += target.memsize(i);
      if (!tree.reachable(i)) {
        cluster.retained += target.memsize(i);
        continue;
      }
      reachable.push_back(i);
      if (!(covered[i] & kCoveredByLeak)) cluster.retained += tree.retained(i);
    }
    cluster.owners = owners_of(target, reachable);
  }
}

void place_rows(const DiffDumps& dumps, RowsInProgress& rows) {
  for (auto& [anchor, cluster] : rows.rows)
    rows.holder_names[anchor] = place(dumps.target, cluster, rows.via_memo);
}

void read_growth(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows) {
  const Counterparts& baseline = dumps.baseline.of_target();
  const Heap& target = dumps.target;
  const Counterparts* later = dumps.later ? &dumps.later->of_target() : nullptr;
  for (auto& [anchor, cluster] : rows.rows) {
    // Growth is read where the references were gained: the holder, or the
    // last VM hop under it (a Proc's env, a class's method table).
    cluster.growth = growth_of(baseline, target, later, growth_object(cluster), diff.moved_later);
    if (cluster.holder != kNoObject && rows.leaked[cluster.holder]) {
      // Made between A and B: whatever sits at its address in A is another object.
      cluster.growth.born = true;
      cluster.growth.baseline.reset();
    }
    if (looks_bounded(cluster.growth))  // only then: its first entry in C
      cluster.growth.rebuilt =
          rebuilt_entry(target, growth_object(cluster), later, cluster.retained);
  }
}

// A holder whose entry holding the leak is rebuilt (growth.rebuilt) may be
// an owner that replaces a container by a new one (`@errors = @errors.last(50)`,
// `@sessions = @sessions.reject { ... }`), not by a grown copy: when that
// entry has a length, it is found again in A and C among the owner's
// references (core/diagnosis/replaced_entries.h) and the growth is read on it, with
// whether it dropped entries: a store swept to its cap reads bounded there.
void read_replaced_entries(const DiffDumps& dumps, RowsInProgress& rows) {
  if (!dumps.later) return;
  const Heap& target = dumps.target;
  std::vector<LeakCluster*> rebuilt;
  std::vector<EntryQuery> queries;
  for (auto& [anchor, cluster] : rows.rows) {
    if (!cluster.growth.rebuilt) continue;
    const ObjectIndex owner = growth_object(cluster);
    const ObjectIndex entry = target.references(owner).front();  // rebuilt_entry's entry
    if (!target.length(entry)) continue;
    rebuilt.push_back(&cluster);
    queries.push_back({owner, entry});
  }
  if (rebuilt.empty()) return;
  // A's and C's heaps, read for these rows (held, or loaded now): the copy
  // is none of B's objects, so the counterparts do not have it.
  const auto baseline = dumps.baseline.heap();
  const auto in_baseline = find_replaced_entries(target, queries, *baseline);
  const auto later = dumps.later->heap();
  const auto in_later = find_replaced_entries(target, queries, *later);
  for (std::size_t q = 0; q < rebuilt.size(); ++q) {
    if (!in_later[q]) continue;  // C's copy not found: its size still says nothing
    const ObjectIndex entry = queries[q].entry;
    Growth& growth = rebuilt[q]->growth;
    growth.field = target.type(entry) == ObjectType::kHash     ? "size"
                   : target.type(entry) == ObjectType::kString ? "bytesize"
                                                               : "length";
    growth.baseline.reset();
    if (in_baseline[q]) growth.baseline = baseline->length(*in_baseline[q]);
    growth.target = target.length(entry);
    growth.later = later->length(*in_later[q]);
    growth.stack = false;
    growth.rebuilt = false;
    growth.replaced = true;
    growth.dropped = dropped_entries(target, entry, &dumps.later->of_target());
    growth.drops = growth.dropped > 0;
  }
}

void name_rows(const DiffDumps& dumps, GroupBy group_by, RowsInProgress& rows) {
  const Heap& target = dumps.target;
  for (auto& [anchor, cluster] : rows.rows) {
    const std::string& holder_name = rows.holder_names[anchor];
    cluster.classes = cluster_classes(target, cluster.objects, group_by);
    cluster.key = label_of(cluster, holder_name);
    if (cluster.growth.born) cluster.key += " (created between A and B)";
    cluster.signature = signature_of(cluster, holder_name);
    cluster.block = block_of(target, cluster);
  }
}

void judge_rows(const DiffDumps& dumps, RowsInProgress& rows) {
  const Counterparts& baseline = dumps.baseline.of_target();
  const Heap& target = dumps.target;
  const Counterparts* later = dumps.later ? &dumps.later->of_target() : nullptr;
  const CaptureOwn capture_own(target);
  for (auto& [anchor, cluster] : rows.rows) {
    // The capture gem's objects are in every dump it takes: never the program's leak.
    if (cluster.noise == NoiseReason::kNone && capture_own.owns(target, cluster))
      cluster.noise = NoiseReason::kCaptureOwn;
    if (cluster.noise == NoiseReason::kNone) {
      // What the cluster holds first (threads, self-finalized objects, classes
      // made at run time), then where it sits.
      if (auto shape = judge_shape(baseline, target, later, cluster)) {
        cluster.noise = shape->noise;
        if (!shape->label.empty()) cluster.key = std::move(shape->label);
        if (shape->growth) cluster.growth = std::move(*shape->growth);
      } else {
        cluster.noise = classify(target, cluster);
      }
    }
    (cluster.noise == NoiseReason::kNone ? rows.out.leaks : rows.out.noise)
        .push_back(std::move(cluster));
  }
  rows.rows.clear();
}

void add_grown_rows(const DiffDumps& dumps, const LeakDiff& diff, RowsInProgress& rows) {
  const Heap& target = dumps.target;
  LeakClusters& out = rows.out;
  std::unordered_set<ObjectIndex> holding;
  for (const auto* list : {&out.leaks, &out.noise}) {
    for (const LeakCluster& row : *list) {
      holding.insert(row.holder);
      holding.insert(row.hops.begin(), row.hops.end());
    }
  }
  for (const GrownObject& g : diff.grown) {
    if (holding.contains(g.object) || !target.root_paths().reachable(g.object)) continue;
    LeakCluster row;
    row.holder = g.object;
    row.grown_in_place = true;
    row.memsize = g.bytes_target;
    row.retained = g.bytes_target - std::min(g.bytes_target, g.bytes_baseline);
    row.growth = Growth{g.field, g.baseline, g.target, g.later};
    const std::string holder_name = place(target, row, rows.via_memo);
    row.key = label_of(row, holder_name);
    row.signature = signature_of(row, holder_name);
    out.leaks.push_back(std::move(row));
  }
}

void rank_rows(RowsInProgress& rows) {
  auto by_retained = [](const LeakCluster& a, const LeakCluster& b) {
    if (a.retained != b.retained) return a.retained > b.retained;
    if (a.count != b.count) return a.count > b.count;
    return a.key < b.key;
  };
  std::sort(rows.out.leaks.begin(), rows.out.leaks.end(), by_retained);
  std::sort(rows.out.noise.begin(), rows.out.noise.end(), by_retained);
}

}  // namespace heapleak
