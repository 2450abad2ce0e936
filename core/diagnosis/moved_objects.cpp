#include "core/diagnosis/moved_objects.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace heapleak {
namespace {

// Below this many objects alive since A, no verdict: too few to tell.
constexpr std::uint64_t kMinOldObjects = 1000;

bool is_live(ObjectType type) { return type != ObjectType::kNone && type != ObjectType::kMoved; }

// What an object is wherever it sits: compaction moves it and keeps all of
// this (its references are updated, their number is not). Not its
// allocation site: Ruby 3.1's GC.compact drops a moved object's (C had 1,011
// records with a file where B had 3,692).
std::uint64_t content(const Heap& heap, ObjectIndex i) {
  std::uint64_t h = static_cast<std::uint64_t>(heap.type(i)) * 0x9E3779B97F4A7C15ull;
  const auto mix = [&h](std::uint64_t value) {
    h = (h ^ value) * 0xff51afd7ed558ccdull;
    h ^= h >> 33;
  };
  mix(std::hash<std::string_view>{}(heap.class_name(i)));
  mix(std::hash<std::string_view>{}(heap.own_name(i)));
  mix(heap.value_hash(i));
  mix(heap.first_ref(i) == 0);  // has references or not (the fingerprint itself moves)
  mix(heap.memsize(i));
  const auto length = heap.length(i);
  const auto count = length ? length : heap.record_reference_count(i);
  mix(count ? *count + 1 : 0);
  return h;
}

}  // namespace

MovedObjects find_moved_objects(const Heap& target, const Heap& later,
                                const std::vector<ObjectIndex>& in_baseline,
                                const std::vector<ObjectIndex>& in_later) {
  MovedObjects out;
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    if (!is_live(target.type(i)) || in_baseline[i] == kNoObject) continue;
    ++out.old_objects;
    out.old_vanished += in_later[i] == kNoObject;
  }
  // Churn takes a few old objects (an entry evicted); a compaction moves a
  // share of the heap, whole pages of it (it empties the pages it moves out
  // of into the holes of others): 7% of a Rack app's objects alive since A,
  // and every leaked one. Below 2% there is nothing to look for (one pass,
  // no more, on every diff).
  if (out.old_objects < kMinOldObjects || 50 * out.old_vanished < out.old_objects) return out;
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
    if (!is_live(target.type(i)) || in_baseline[i] == kNoObject) continue;
    if (const std::uint64_t p = target.address(i) >> 16; p != page) {
      close_page();
      page = p;
      old = gone = 0;
    }
    ++old;
    gone += in_later[i] == kNoObject;
  }
  close_page();
  if (emptied < 2 || 20 * emptied < settled) return out;

  // C's objects at addresses B has no live object at (or another one), by content.
  std::vector<char> taken(later.size(), 0);
  for (ObjectIndex i = 0; i < target.size(); ++i)
    if (in_later[i] != kNoObject) taken[in_later[i]] = 1;
  std::unordered_map<std::uint64_t, std::vector<ObjectIndex>> appeared;
  for (ObjectIndex j = 0; j < later.size(); ++j)
    if (!taken[j] && is_live(later.type(j))) appeared[content(later, j)].push_back(j);
  std::unordered_map<std::uint64_t, std::vector<ObjectIndex>> vanished_new;
  for (ObjectIndex i = 0; i < target.size(); ++i) {
    if (!is_live(target.type(i)) || in_later[i] != kNoObject) continue;
    const std::uint64_t key = content(target, i);
    if (in_baseline[i] != kNoObject) {
      out.old_reappeared += appeared.contains(key);
    } else {
      vanished_new[key].push_back(i);
    }
  }
  // Moved, not died: most vanished old objects are found again elsewhere.
  if (2 * out.old_reappeared < out.old_vanished) return out;
  out.moved = true;
  for (const auto& [key, objects] : vanished_new) {
    const auto it = appeared.find(key);
    // Certain only when the content names one object on each side.
    if (objects.size() == 1 && it != appeared.end() && it->second.size() == 1)
      out.matched.push_back(objects.front());
    else
      out.unmatched += objects.size();
  }
  std::sort(out.matched.begin(), out.matched.end());
  return out;
}

}  // namespace heapleak
