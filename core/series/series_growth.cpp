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

void add_series_growth(const Heap& target, std::span<const Heap* const> dumps,
                       LeakClusters& clusters) {
  for (auto* rows : {&clusters.leaks, &clusters.noise}) {
    for (LeakCluster& row : *rows) {
      row.series.assign(dumps.size(), std::nullopt);
      row.series_bytes.assign(dumps.size(), std::nullopt);
      const ObjectIndex object = growth_object(row);
      if (object == kNoObject) continue;
      for (std::size_t k = 0; k < dumps.size(); ++k) {
        row.series[k] = size_in_dump(target, object, *dumps[k]);
        if (const auto j = same_container_in(target, object, *dumps[k]))
          row.series_bytes[k] = dumps[k]->memsize(*j);
      }
    }
  }
  std::stable_partition(clusters.leaks.begin(), clusters.leaks.end(),
                        [](const LeakCluster& row) { return grew_every_interval(row.series); });
}

}  // namespace heapleak
