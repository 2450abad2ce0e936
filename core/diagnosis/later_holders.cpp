#include "core/diagnosis/later_holders.h"

#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "core/diagnosis/growth_verdict.h"
#include "core/graph/root_paths.h"

namespace heapleak {
namespace {

// Objects visited by one reverse search at most: a gone holder over a huge
// leaked graph falls back to its ancestors rather than walk it all.
constexpr std::size_t kMaxVisits = 200000;

class LivesOn {
 public:
  LivesOn(const Counterparts& baseline, const Counterparts& later)
      : baseline_(baseline), later_(later) {}

  // There in A and in C as the same container (same_container: an LRU that
  // evicted its first key lives on; the diff's untraced rule would say no).
  bool operator()(ObjectIndex i) const {
    return baseline_.same_container(i) && later_.same_container(i);
  }

 private:
  const Counterparts& baseline_;
  const Counterparts& later_;
};

// Another referrer of the group, reached from it through leaked objects,
// that lives on in C; kNoObject when none.
ObjectIndex other_holder(const Heap& target, std::span<const char> leaked,
                         const std::vector<ObjectIndex>& group, ObjectIndex gone,
                         const LivesOn& lives_on) {
  const RootPaths& paths = target.root_paths();
  std::unordered_set<ObjectIndex> seen(group.begin(), group.end());
  std::deque<ObjectIndex> queue(group.begin(), group.end());
  while (!queue.empty() && seen.size() < kMaxVisits) {
    const ObjectIndex y = queue.front();
    queue.pop_front();
    for (ObjectIndex r : target.referrers(y)) {
      if (r == gone || !seen.insert(r).second) continue;
      if (leaked[r]) {
        queue.push_back(r);
      } else if (paths.reachable(r) && lives_on(r)) {
        return r;
      }
    }
  }
  return kNoObject;
}

}  // namespace

void keep_holders_alive_in_later(const Counterparts& baseline, const Heap& target,
                                 const Counterparts& later, std::span<const char> leaked,
                                 std::span<const ObjectIndex> objects,
                                 std::span<ObjectIndex> holder_of, ObjectIndex transient_mark) {
  if (!target.has_edges()) return;
  const LivesOn lives_on(baseline, later);
  std::unordered_map<ObjectIndex, std::vector<ObjectIndex>> gone;
  for (ObjectIndex x : objects) {
    const ObjectIndex h = holder_of[x];
    if (h >= kFirstHolderMark || lives_on(h)) continue;
    gone[h].push_back(x);
  }
  const RootPaths& paths = target.root_paths();
  for (auto& [holder, group] : gone) {
    ObjectIndex anchor = other_holder(target, leaked, group, holder, lives_on);
    // A container replaced by a copy between B and C: its owner lives on.
    for (ObjectIndex y = paths.parent(holder); anchor == kNoObject && y != kNoObject;
         y = paths.parent(y))
      if (!leaked[y] && lives_on(y)) anchor = y;
    for (ObjectIndex x : group) holder_of[x] = anchor == kNoObject ? transient_mark : anchor;
  }
}

}  // namespace heapleak
