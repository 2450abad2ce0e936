#include "core/diagnosis/moved_objects.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/reading/record_parser.h"

namespace heapleak {
namespace {

// Below this many objects alive since A, no verdict: too few to tell.
constexpr std::uint64_t kMinOldObjects = 1000;

bool is_live(ObjectType type) { return type != ObjectType::kNone && type != ObjectType::kMoved; }

std::uint64_t mix(std::uint64_t h, std::uint64_t value) {
  h = (h ^ value) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

// What an object is wherever it sits: compaction moves it and keeps all of
// this (its references are updated, their number is not). Not its
// allocation site: Ruby 3.1's GC.compact drops a moved object's (C had 1,011
// records with a file where B had 3,692).
std::uint64_t content(const Heap& heap, ObjectIndex i) {
  std::uint64_t h = static_cast<std::uint64_t>(heap.type(i)) * 0x9E3779B97F4A7C15ull;
  h = mix(h, std::hash<std::string_view>{}(heap.class_name(i)));
  h = mix(h, std::hash<std::string_view>{}(heap.own_name(i)));
  h = mix(h, heap.value_hash(i));
  h = mix(h, heap.first_ref(i) == 0);  // has references or not (the fingerprint itself moves)
  h = mix(h, heap.memsize(i));
  const auto length = heap.length(i);
  const auto count = length ? length : heap.record_reference_count(i);
  return mix(h, count ? *count + 1 : 0);
}

// Whether a load of any mode knows the object's size: its length, or the
// reference count an identity-only load keeps (counts_references' types).
// An object without it is never matched by content alone: a full load of C
// counts every object's references where an identity-only one (how
// `heapleak` reads C for this pass, and heapleakd a C it streamed) does not,
// and the verdict must not hang on how C was loaded (a full C took 5% of
// tests/apps' descendants' old objects for moved, and 17 new objects of B
// for leaked, where nothing had moved).
bool sized(const Heap& heap, ObjectIndex i) {
  return heap.length(i) || counts_references(heap.type(i));
}

// Its content and the contents of what it holds: two Report Structs alike
// in themselves differ by their Strings. A sum, so in any order: a heap
// keeps references in address order, which the compaction changed.
std::uint64_t held_content(const Heap& heap, ObjectIndex i) {
  std::uint64_t held = 0;
  for (ObjectIndex r : heap.references(i)) held += mix(content(heap, r), 0x51ed27);
  return mix(content(heap, i), held);
}

// What may be the same object grown or shrunk: a container (an Array, a
// Hash, an object's or a Struct's fields) of one type and class. Not a
// String (its text is its content), nor a File or other DATA: the File
// `ObjectSpace.dump_all` wrote B to is not the one it wrote C to.
std::optional<std::uint64_t> kind(const Heap& heap, ObjectIndex i) {
  switch (heap.type(i)) {
    case ObjectType::kArray:
    case ObjectType::kHash:
    case ObjectType::kObject:
    case ObjectType::kStruct:
      return mix(static_cast<std::uint64_t>(heap.type(i)),
                 std::hash<std::string_view>{}(heap.class_name(i)));
    default:
      return std::nullopt;
  }
}

// Counts the old objects gone from their address and reads the pages they
// left: whether a compaction moved part of the heap (`out.moved` is then
// decided by what reappeared, in find_moved_objects).
bool pages_emptied(const Heap& target, std::span<const char> in_baseline,
                   std::span<const char> in_later, MovedObjects& out) {
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    if (!is_live(target.type(i)) || !in_baseline[i]) continue;
    ++out.old_objects;
    out.old_vanished += !in_later[i];
  }
  // Churn takes a few old objects (an entry evicted); a compaction moves a
  // share of the heap, whole pages of it (it empties the pages it moves out
  // of into the holes of others): 7% of a Rack app's objects alive since A,
  // and every leaked one. Below 2% there is nothing to look for (one pass,
  // no more, on every diff).
  if (out.old_objects < kMinOldObjects || 50 * out.old_vanished < out.old_objects) return false;
  // Pages of 64 KiB (of 8 or more old objects) that lost half of them or
  // more: 8 of a compacted app's 33, none of an evicting cache's 52 (it lost
  // 2.3% of its old objects, scattered) nor of any other app of tests/apps.
  // The heap is in address order: a page is a run of indices.
  std::size_t settled = 0, emptied = 0;
  std::uint64_t page = UINT64_MAX, old = 0, gone = 0;
  const auto close_page = [&] {
    if (old >= 8) {
      ++settled;
      emptied += 2 * gone >= old;
    }
  };
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    if (!is_live(target.type(i)) || !in_baseline[i]) continue;
    if (const std::uint64_t p = target.address(i) >> 16; p != page) {
      close_page();
      page = p;
      old = gone = 0;
    }
    ++old;
    gone += !in_later[i];
  }
  close_page();
  return emptied >= 2 && 20 * emptied >= settled;
}

// For each object of B found unchanged in C (`in_later`), its index in C.
std::vector<ObjectIndex> indices_in(const Heap& target, const Heap& later,
                                    std::span<const char> in_later) {
  std::vector<ObjectIndex> out(target.size(), kNoObject);
  ObjectIndex j = 0;
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    if (!in_later[i]) continue;
    while (j < later.size() && later.address(j) < target.address(i)) ++j;
    if (j < later.size() && later.address(j) == target.address(i)) out[i] = j;
  }
  return out;
}

// B's vanished objects paired with C's appeared ones: first where a content
// names one object on each side, then (C's references at hand) holder by
// holder, from the objects whose counterpart is known down to what they hold.
class MoveMatcher {
 public:
  MoveMatcher(const Heap& target, const Heap& later, std::span<const char> in_later)
      : b_(target),
        c_(later),
        in_later_(indices_in(target, later, in_later)),
        to_c_(target.size(), kNoObject),
        taken_(later.size(), 0) {
    for (ObjectIndex i = 0; i < b_.size(); ++i)
      if (in_later_[i] != kNoObject) taken_[in_later_[i]] = 1;
  }

  // B's old objects gone from their address whose content appeared at an
  // address new in C: moved, not died.
  std::uint64_t old_found_elsewhere(std::span<const char> in_baseline) const {
    std::unordered_set<std::uint64_t> appeared;
    for (ObjectIndex j = 0; j < c_.size(); ++j)
      if (!taken_[j] && is_live(c_.type(j)) && sized(c_, j)) appeared.insert(content(c_, j));
    std::uint64_t found = 0;
    for (ObjectIndex i = 0; i < b_.size(); ++i)
      if (vanished_here(i) && in_baseline[i] && sized(b_, i))
        found += appeared.contains(content(b_, i));
    return found;
  }

  // `news_only`: only B's new objects are looked for (without C's
  // references, old ones are of no use); `key`: content or held content.
  void match_unique(bool news_only, std::span<const char> in_baseline,
                    std::uint64_t (*key)(const Heap&, ObjectIndex)) {
    std::unordered_map<std::uint64_t, std::vector<ObjectIndex>> appeared, vanished;
    for (ObjectIndex j = 0; j < c_.size(); ++j)
      if (!taken_[j] && is_live(c_.type(j)) && sized(c_, j)) appeared[key(c_, j)].push_back(j);
    for (ObjectIndex i = 0; i < b_.size(); ++i)
      if (vanished_here(i) && to_c_[i] == kNoObject && !(news_only && in_baseline[i]) &&
          sized(b_, i))
        vanished[key(b_, i)].push_back(i);
    // Certain only when the content names one object on each side.
    for (const auto& [k, objects] : vanished) {
      const auto it = appeared.find(k);
      if (objects.size() == 1 && it != appeared.end() && it->second.size() == 1)
        pair(objects.front(), it->second.front(), false);
    }
  }

  // Holder by holder: an object of B and its counterpart in C hold the same
  // objects, so what vanished from one and appeared in the other pairs up,
  // by held content, then content, then (one container of a kind on each
  // side) by kind: a holder that grew or evicted between B and C is still itself (a
  // container replaced by a copy, `@list = @list.reject { ... }`, reads as
  // the old one alive: the entries it kept are, which is what counts).
  // Copies alike under one holder are paired in any order: which copy is
  // which cannot be told, that each is alive can.
  void match_through_holders() {
    std::vector<char> queued(b_.size(), 0);
    for (ObjectIndex i = 0; i < b_.size(); ++i) {
      if (!vanished_here(i) || to_c_[i] != kNoObject) continue;
      for (ObjectIndex holder : b_.referrers(i))
        if (!queued[holder] && counterpart(holder) != kNoObject) {
          queued[holder] = 1;
          work_.push_back(holder);
        }
    }
    while (!work_.empty()) {
      const ObjectIndex holder = work_.back();
      work_.pop_back();
      pair_held(holder, counterpart(holder));
    }
  }

  ObjectIndex to_c(ObjectIndex i) const { return to_c_[i]; }
  bool by_holder(ObjectIndex i) const { return through_holder_.contains(i); }
  bool vanished_here(ObjectIndex i) const {
    return is_live(b_.type(i)) && in_later_[i] == kNoObject;
  }

 private:
  ObjectIndex counterpart(ObjectIndex i) const {
    return in_later_[i] != kNoObject ? in_later_[i] : to_c_[i];
  }

  void pair(ObjectIndex i, ObjectIndex j, bool through_holder) {
    to_c_[i] = j;
    taken_[j] = 1;
    if (through_holder) through_holder_.insert(i);
    // What it holds is looked for under it next (a pair found by content
    // alone is queued by match_through_holders' first sweep, if it holds any).
    if (through_holder && !b_.references(i).empty()) work_.push_back(i);
  }

  void pair_held(ObjectIndex holder, ObjectIndex there) {
    std::vector<ObjectIndex> gone, came;
    for (ObjectIndex r : b_.references(holder))
      if (vanished_here(r) && to_c_[r] == kNoObject) gone.push_back(r);
    if (gone.empty()) return;
    for (ObjectIndex s : c_.references(there))
      if (!taken_[s] && is_live(c_.type(s))) came.push_back(s);
    if (came.empty()) return;
    pair_by(gone, came, held_content);
    pair_by(gone, came, content);
    pair_by_kind(gone, came);
  }

  // Pairs what has equal keys (as many as both sides have), and keeps the rest.
  void pair_by(std::vector<ObjectIndex>& gone, std::vector<ObjectIndex>& came,
               std::uint64_t (*key)(const Heap&, ObjectIndex)) {
    if (gone.empty() || came.empty()) return;
    std::unordered_map<std::uint64_t, std::vector<ObjectIndex>> by_key;
    for (ObjectIndex s : came) by_key[key(c_, s)].push_back(s);
    std::vector<ObjectIndex> left;
    for (ObjectIndex r : gone) {
      auto it = by_key.find(key(b_, r));
      if (it == by_key.end() || it->second.empty()) {
        left.push_back(r);
        continue;
      }
      pair(r, it->second.back(), true);
      it->second.pop_back();
    }
    gone = std::move(left);
    std::erase_if(came, [this](ObjectIndex s) { return taken_[s] != 0; });
  }

  void pair_by_kind(const std::vector<ObjectIndex>& gone, const std::vector<ObjectIndex>& came) {
    if (gone.empty() || came.empty()) return;
    std::unordered_map<std::uint64_t, std::pair<int, ObjectIndex>> one_gone, one_came;
    for (ObjectIndex r : gone) {
      if (const auto k = kind(b_, r)) {
        auto& [n, object] = one_gone[*k];
        ++n;
        object = r;
      }
    }
    for (ObjectIndex s : came) {
      if (const auto k = kind(c_, s)) {
        auto& [n, object] = one_came[*k];
        ++n;
        object = s;
      }
    }
    for (const auto& [k, side] : one_gone) {
      const auto it = one_came.find(k);
      if (side.first != 1 || it == one_came.end() || it->second.first != 1) continue;
      pair(side.second, it->second.second, true);
    }
  }

  const Heap& b_;
  const Heap& c_;
  std::vector<ObjectIndex> in_later_;  // B's objects found unchanged in C: their index there
  std::vector<ObjectIndex> to_c_;      // B's vanished objects' counterparts in C
  std::vector<char> taken_;            // C's objects accounted for
  std::vector<ObjectIndex> work_;      // B's objects whose held objects are to pair
  std::unordered_set<ObjectIndex> through_holder_;
};

}  // namespace

MovedObjects find_moved_objects(const Heap& target, const OtherDump& later_dump,
                                std::span<const char> in_baseline, std::span<const char> in_later) {
  MovedObjects out;
  if (!pages_emptied(target, in_baseline, in_later, out)) return out;

  // Moved, not died: most vanished old objects are found again elsewhere,
  // by their content alone (the same verdict with or without C's references).
  // The one place the diff reads C's objects that are not B's: its heap.
  const std::shared_ptr<const Heap> held = later_dump.heap();
  const Heap& later = *held;
  MoveMatcher matcher(target, later, in_later);
  out.old_reappeared = matcher.old_found_elsewhere(in_baseline);
  if (2 * out.old_reappeared < out.old_vanished) return out;
  out.moved = true;

  out.later_references = later.has_edges() && target.has_edges();
  if (out.later_references) {
    // Held content names more objects one of a kind; content then finds
    // holders whose own holdings changed (a class whose Hash grew).
    matcher.match_unique(false, in_baseline, held_content);
    matcher.match_unique(false, in_baseline, content);
    matcher.match_through_holders();
  } else {
    matcher.match_unique(true, in_baseline, content);
  }
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    if (!matcher.vanished_here(i) || in_baseline[i]) continue;
    if (matcher.to_c(i) == kNoObject) {
      ++out.unmatched;
      continue;
    }
    out.matched.push_back(i);
    out.by_holder += matcher.by_holder(i);
  }
  return out;
}

}  // namespace heapleak
