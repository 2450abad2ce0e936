#include "core/series/series_growth.h"

#include <algorithm>

#include "core/diagnosis/growth_verdict.h"

namespace heapleak {
namespace {

// The object a row's growth is read on: the holder, or the last VM hop
// under it (leak_clusters.cpp growth_of reads the same one).
ObjectIndex growth_object(const LeakCluster& row) {
  return row.hops.empty() ? row.holder : row.hops.back();
}

}  // namespace

std::size_t intervals_grown(std::span<const std::optional<std::uint64_t>> counts) {
  std::size_t grew = 0;
  for (std::size_t k = 1; k < counts.size(); ++k)
    if (counts[k - 1] && counts[k] && *counts[k] > *counts[k - 1]) ++grew;
  return grew;
}

bool grew_every_interval(std::span<const std::optional<std::uint64_t>> counts) {
  return counts.size() >= 2 && intervals_grown(counts) == counts.size() - 1;
}

void add_series_growth(const Heap& target, std::span<const Counterparts* const> others,
                       LeakClusters& clusters) {
  for (auto* rows : {&clusters.leaks, &clusters.noise}) {
    for (LeakCluster& row : *rows) {
      row.series.assign(others.size(), std::nullopt);
      row.series_bytes.assign(others.size(), std::nullopt);
      const ObjectIndex object = growth_object(row);
      if (object == kNoObject) continue;
      for (std::size_t k = 0; k < others.size(); ++k) {
        const Counterparts* other = others[k];
        if (!other) {
          row.series[k] = size_in_dump(target, object, target);
          row.series_bytes[k] = target.memsize(object);
        } else if (other->same_container_or_thread(object)) {
          row.series[k] = size_in_dump(target, object, *other);
          row.series_bytes[k] = other->memsize(target, object);
        }
      }
    }
  }
  std::stable_partition(clusters.leaks.begin(), clusters.leaks.end(),
                        [](const LeakCluster& row) { return grew_every_interval(row.series); });
}

void add_series_growth(const Heap& target, std::span<const Heap* const> dumps,
                       LeakClusters& clusters) {
  std::vector<std::optional<Counterparts>> made(dumps.size());
  std::vector<const Counterparts*> others(dumps.size(), nullptr);
  for (std::size_t k = 0; k < dumps.size(); ++k) {
    if (dumps[k] == &target) continue;
    made[k] = counterparts_of(target, *dumps[k]);
    others[k] = &*made[k];
  }
  add_series_growth(target, others, clusters);
}

}  // namespace heapleak
