#include "results/explain_json.h"

#include "core/series/row_native.h"
#include "core/series/series_growth.h"
#include "results/memory_json.h"
#include "results/object_brief_json.h"
#include "results/owner_json.h"

namespace heapleak::results {
namespace json = boost::json;

namespace {

json::value optional_json(const std::optional<std::uint64_t>& value) {
  return value ? json::value(*value) : json::value(nullptr);
}

}  // namespace

json::object leak_cluster_json(const Heap& target, const LeakCluster& cluster,
                               std::size_t samples) {
  json::array owners;
  for (const auto& owner : cluster.owners) owners.push_back(owner_brief_json(target, owner));
  json::array objects;
  for (const auto& entry : cluster.classes) {
    json::array sites;
    for (const auto& site : entry.sites)
      sites.push_back(json::object{{"site", site.site}, {"count", site.count}});
    objects.push_back(json::object{{"key", entry.key},
                                   {"name", entry.name},
                                   {"count", entry.count},
                                   {"memsize", entry.memsize},
                                   {"sites", std::move(sites)}});
  }
  json::array hops;
  for (ObjectIndex hop : cluster.hops) hops.push_back(object_brief_json(target, hop));
  json::array path_names;
  for (const auto& name : cluster.path_names) path_names.emplace_back(name);
  std::vector<ObjectIndex> shown(
      cluster.objects.begin(), cluster.objects.begin() + std::min(samples, cluster.objects.size()));
  json::object reach{
      {"kind", cluster.reach.kind}, {"name", cluster.reach.name}, {"root", cluster.reach.root}};
  if (!cluster.reach.ivar.empty()) reach["ivar"] = cluster.reach.ivar;
  json::array path_via;
  for (const auto& via : cluster.vias) path_via.push_back(via_json(via));
  json::value growth = nullptr;
  if (cluster.holder != kNoObject) {
    growth = json::object{{"field", cluster.growth.field},
                          {"baseline", optional_json(cluster.growth.baseline)},
                          {"target", optional_json(cluster.growth.target)},
                          {"later", optional_json(cluster.growth.later)}};
    // Its size says nothing when what it holds is replaced by grown copies.
    if (cluster.growth.rebuilt) growth.as_object()["rebuilt"] = true;
    // The holder was made between A and B: nothing of it in A.
    if (cluster.growth.born) growth.as_object()["born"] = true;
    // Read on the container the holder replaces by a new one between dumps.
    if (cluster.growth.replaced) growth.as_object()["replaced"] = true;
  }
  json::object out{
      {"key", cluster.key},
      {"signature", cluster.signature},
      {"holder", cluster.holder == kNoObject
                     ? json::value(nullptr)
                     : json::value(object_brief_json(target, cluster.holder))},
      {"reach", std::move(reach)},
      {"growth", std::move(growth)},
      {"count", cluster.count},
      {"memsize", cluster.memsize},
      {"retained", cluster.retained},
      {"instances", cluster.instances},
      {"grownInPlace", cluster.grown_in_place},
      {"objects", std::move(objects)},
      {"hops", std::move(hops)},
      {"owners", std::move(owners)},
      {"root", cluster.path.root.empty() ? cluster.reach.root : cluster.path.root},
      {"path", addresses_json(target, cluster.path.path)},
      {"pathNames", std::move(path_names)},
      {"pathVia", std::move(path_via)},
      {"samples", addresses_json(target, shown)},
  };
  if (!cluster.block.empty()) out["block"] = cluster.block;
  // Its DATA objects' C memory, or that their memsize cannot say it.
  if (json::value native = row_native_json(row_native(target, cluster.objects)); !native.is_null())
    out["native"] = std::move(native);
  if (!cluster.grows_with.empty()) {
    // Rows this one's holder keeps alive through a block: one leak, one row.
    json::array with;
    for (const auto& [key, holders] : cluster.grows_with)
      with.push_back(json::object{{"key", key}, {"holders", holders}});
    out["growsWith"] = std::move(with);
  }
  if (!cluster.series.empty()) {
    // explain over N >= 4 dumps (core/series_growth.h): one entry per dump.
    json::array counts, bytes;
    for (const auto& count : cluster.series) counts.push_back(optional_json(count));
    for (const auto& size : cluster.series_bytes) bytes.push_back(optional_json(size));
    out["growthCounts"] = std::move(counts);
    out["growthBytes"] = std::move(bytes);
    out["grewIntervals"] = intervals_grown(cluster.series);
  }
  if (cluster.noise != NoiseReason::kNone) {
    out["reason"] = noise_reason_name(cluster.noise);
    out["why"] = noise_reason_why(cluster.noise);
  }
  return out;
}

json::object leak_clusters_json(const Heap& target, const LeakDiff& diff,
                                const LeakClusters& clusters, std::size_t limit,
                                std::size_t samples) {
  json::array leaks, noise;
  for (std::size_t k = 0; k < clusters.leaks.size() && k < limit; ++k)
    leaks.push_back(leak_cluster_json(target, clusters.leaks[k], samples));
  for (std::size_t k = 0; k < clusters.noise.size() && k < limit; ++k)
    noise.push_back(leak_cluster_json(target, clusters.noise[k], samples));
  json::array warnings;
  for (const auto& warning : diff.warnings) warnings.emplace_back(warning);
  return json::object{
      {"leaks", std::move(leaks)},
      {"noise", std::move(noise)},
      {"leakCount", clusters.leaks.size()},
      {"noiseCount", clusters.noise.size()},
      {"total", json::object{{"count", diff.total_count}, {"memsize", diff.total_memsize}}},
      {"rule", diff.rule},
      {"compacted", diff.compacted},
      {"warnings", std::move(warnings)}};
}

}  // namespace heapleak::results
