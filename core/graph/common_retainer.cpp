#include "core/graph/common_retainer.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace heapleak {
namespace {

struct Reach {
  std::uint32_t count = 0;  // samples that reach this object
  std::uint64_t total_distance = 0;
};

// One sample's backward search: for each object found, the object it was
// found from, one step closer to the sample.
struct SampleSearch {
  ObjectIndex sample;
  std::unordered_map<ObjectIndex, ObjectIndex> toward_sample;
  std::vector<ObjectIndex> frontier;
};

std::vector<ObjectIndex> path_from(const SampleSearch& search, ObjectIndex retainer) {
  std::vector<ObjectIndex> path{retainer};
  for (ObjectIndex current = retainer; current != search.sample;) {
    current = search.toward_sample.at(current);
    path.push_back(current);
  }
  return path;
}

}  // namespace

RetainerResult find_common_retainer(const Heap& heap, const RetainerQuery& query) {
  RetainerResult result;
  const std::size_t n = query.samples.size();
  if (n == 0 || !heap.has_edges()) return result;
  const std::size_t need = query.min_samples == 0 ? n : std::min(query.min_samples, n);
  const std::unordered_set<ObjectIndex> is_sample(query.samples.begin(), query.samples.end());

  std::vector<SampleSearch> searches(n);
  std::unordered_map<ObjectIndex, Reach> reach;
  for (std::size_t k = 0; k < n; ++k) {
    searches[k].sample = query.samples[k];
    searches[k].toward_sample.emplace(query.samples[k], query.samples[k]);
    searches[k].frontier.push_back(query.samples[k]);
  }

  std::vector<ObjectIndex> candidates;
  std::vector<ObjectIndex> next;
  for (std::uint32_t depth = 1;; ++depth) {
    bool any_frontier = false;
    for (auto& search : searches) {
      next.clear();
      for (ObjectIndex node : search.frontier) {
        for (ObjectIndex referrer : heap.referrers(node)) {
          ++result.visited;
          if (!search.toward_sample.emplace(referrer, node).second) continue;
          next.push_back(referrer);
          Reach& r = reach[referrer];
          ++r.count;
          r.total_distance += depth;
          if (r.count == need && !is_sample.contains(referrer)) candidates.push_back(referrer);
        }
      }
      search.frontier.swap(next);
      any_frontier = any_frontier || !search.frontier.empty();
    }
    if (!candidates.empty()) {
      // Nearest first: most samples reached, then shortest total distance,
      // then lowest address, so the answer never depends on visiting order.
      const ObjectIndex best = *std::min_element(candidates.begin(), candidates.end(),
                                                 [&](ObjectIndex a, ObjectIndex b) {
                                                   const Reach& ra = reach[a];
                                                   const Reach& rb = reach[b];
                                                   if (ra.count != rb.count)
                                                     return ra.count > rb.count;
                                                   if (ra.total_distance != rb.total_distance)
                                                     return ra.total_distance < rb.total_distance;
                                                   return heap.address(a) < heap.address(b);
                                                 });
      result.retainer = best;
      result.distance = depth;
      for (const auto& search : searches) {
        if (search.toward_sample.contains(best)) result.paths.push_back(path_from(search, best));
      }
      return result;
    }
    if (!any_frontier) return result;
    if (query.cancel != nullptr && query.cancel->load(std::memory_order_relaxed)) {
      result.cancelled = true;
      return result;
    }
    if (result.visited > query.max_visits) {
      result.budget_exhausted = true;
      return result;
    }
  }
}

}  // namespace heapleak
