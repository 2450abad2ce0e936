#include "results/results_json.h"

#include "core/graph/dominators.h"
#include "core/heap/naming.h"
#include "core/heap/object_key.h"
#include "core/heap/record_reader.h"
#include "core/loading/load_warnings.h"
#include "core/series/series_growth.h"
#include "results/text/utf8_text.h"

namespace heapleak::results {
namespace json = boost::json;

json::array addresses_json(const Heap& heap, const std::vector<ObjectIndex>& objects) {
  json::array out;
  out.reserve(objects.size());
  for (ObjectIndex i : objects) out.emplace_back(format_address(heap.address(i)));
  return out;
}

json::object heap_summary_json(const Heap& heap) {
  const LoadReport& report = heap.report();
  json::object roots;
  for (const auto& root : heap.roots()) roots[root.name] = root.targets.size();
  json::array broken;
  for (std::size_t k = 0; k < report.first_broken_lines.size(); ++k) {
    broken.push_back(json::object{{"line", report.first_broken_lines[k]},
                                  {"reason", report.first_broken_reasons[k]}});
  }
  const std::size_t bytes = heap.bytes_used();
  json::array warnings;
  for (const auto& warning : load_warnings(report)) warnings.emplace_back(warning);
  return json::object{
      {"path", report.path},
      {"gzip", report.gzip},
      {"objects", heap.size()},
      {"roots", std::move(roots)},
      {"rootRecords", report.root_records},
      {"shapes", report.shapes},
      {"references", report.references},
      {"missingReferences", report.missing_references},
      {"duplicateAddresses", report.duplicate_addresses},
      {"lines", report.lines},
      {"brokenLines", report.broken_lines},
      {"firstBrokenLines", std::move(broken)},
      {"traced", report.traced},
      {"fileBytes", report.file_bytes},
      {"streamBytes", report.stream_bytes},
      {"residentBytes", bytes},
      {"bytesPerObject", heap.size() == 0 ? 0.0 : static_cast<double>(bytes) / heap.size()},
      {"loadSeconds", report.seconds},
      {"cache", cache_use_name(report.cache)},
      {"truncated", looks_truncated(report)},
      {"warnings", std::move(warnings)},
  };
}

json::object leak_diff_json(const Heap& target, const LeakDiff& diff) {
  json::array groups;
  for (const auto& group : diff.groups) {
    json::object item{{"key", group.key},
                      {"count", group.count},
                      {"memsize", group.memsize},
                      {"samples", addresses_json(target, group.samples)}};
    if (group.vm_internal) item["vmInternal"] = true;
    groups.push_back(std::move(item));
  }
  json::array warnings;
  for (const auto& warning : diff.warnings) warnings.emplace_back(warning);
  json::array grown;
  for (const auto& g : diff.grown) {
    grown.push_back(
        json::object{{"address", format_address(target.address(g.object))},
                     {"type", object_type_name(target.type(g.object))},
                     {"class", class_display_name(target, g.object)},
                     {"field", g.field},
                     {"baseline", g.baseline},
                     {"target", g.target},
                     {"later", g.later},
                     {"memsize", json::array{g.bytes_baseline, g.bytes_target, g.bytes_later}}});
  }
  return json::object{
      {"threeWay", diff.three_way},
      {"rule", diff.rule},
      {"compacted", diff.compacted},
      {"baselineSurvival", diff.baseline_survival},
      {"laterSurvival", diff.later_survival},
      {"warnings", std::move(warnings)},
      {"groups", std::move(groups)},
      {"total", json::object{{"count", diff.total_count}, {"memsize", diff.total_memsize}}},
      {"grown", std::move(grown)},
  };
}

json::object object_brief_json(const Heap& heap, ObjectIndex i) {
  json::object out{{"address", format_address(heap.address(i))},
                   {"type", object_type_name(heap.type(i))},
                   {"class", class_display_name(heap, i)},
                   {"name", ruby_name(heap, i)},
                   {"key", object_key(heap, i)},
                   {"memsize", folded_memsize(heap, i)}};
  if (std::string_view file = heap.file(i); !file.empty()) {
    out["file"] = file;
    out["line"] = heap.line(i);
  }
  if (auto generation = heap.generation(i)) out["generation"] = *generation;
  return out;
}

json::value via_json(const EdgeName& via) {
  json::array names;
  for (const auto& name : via.names) names.emplace_back(name);
  switch (via.kind) {
    case EdgeName::Kind::kExact:
      if (via.names.size() == 1) return json::object{{"ivar", via.names.front()}};
      return json::object{{"ivars", std::move(names)}};
    case EdgeName::Kind::kCandidates:
      return json::object{{"candidates", std::move(names)}};
    case EdgeName::Kind::kNone:
      break;
  }
  return nullptr;
}

json::object root_path_json(const Heap& heap, const RootPath& path) {
  const std::vector<EdgeName> vias = path_vias(heap, path.path);
  json::array objects;
  for (std::size_t k = 0; k < path.path.size(); ++k) {
    json::object brief = object_brief_json(heap, path.path[k]);
    if (json::value via = via_json(vias[k]); !via.is_null()) brief["via"] = std::move(via);
    objects.push_back(std::move(brief));
  }
  json::array names;
  for (auto& name : path_names(heap, path.root, path.path, vias)) names.emplace_back(name);
  json::object out{{"root", path.root},
                   {"path", addresses_json(heap, path.path)},
                   {"pathNames", std::move(names)},
                   {"objects", std::move(objects)}};
  if (!path.root_via.empty()) {
    out["rootVia"] = addresses_json(heap, path.root_via);
    // Their names, as a path's text says them (ROOT vm (through DATA:VM/pin_array_list)).
    json::array via_names;
    for (ObjectIndex i : path.root_via) via_names.emplace_back(ruby_name(heap, i));
    out["rootViaNames"] = std::move(via_names);
  }
  return out;
}

namespace {

// Says what the common retainer is when it is not the samples' container:
// a VM internal, or only where the paths of several containers meet.
std::string retainer_note(const Heap& heap, const RetainerReport& answer) {
  const ObjectIndex retainer = answer.result.retainer;
  std::string note;
  if (answer.split.split) {
    note = "the samples are held by " + std::to_string(answer.split.groups.size()) +
           " different containers (groups)";
    if (retainer != kNoObject)
      note +=
          "; the common retainer " + ruby_name(heap, retainer) + " is only where their paths meet";
  }
  if (retainer != kNoObject && is_vm_internal(heap, retainer)) {
    if (!note.empty()) note += "; ";
    note += "the common retainer is a VM internal (" + ruby_name(heap, retainer) +
            "), not an object of the program";
  }
  return note;
}

}  // namespace

json::object retainer_json(const Heap& heap, const RetainerReport& answer) {
  const RetainerResult& result = answer.result;
  json::array nodes;
  for (const auto& node : answer.graph.nodes) {
    json::object brief = object_brief_json(heap, node.index);
    brief["role"] = node_role_name(node.role);
    brief["sample"] = node.role == NodeRole::kSample;
    nodes.push_back(std::move(brief));
  }
  json::array edges;
  for (const auto& [from, to] : answer.graph.edges) {
    edges.push_back(json::object{{"from", format_address(heap.address(from))},
                                 {"to", format_address(heap.address(to))}});
  }
  json::array unknown;
  for (Address address : answer.unknown) unknown.emplace_back(format_address(address));
  json::object out{
      {"retainer", result.retainer == kNoObject
                       ? json::value(nullptr)
                       : json::value(format_address(heap.address(result.retainer)))},
      {"distance", result.distance},
      {"samples", addresses_json(heap, answer.samples)},
      {"samplesReached", result.paths.size()},
      {"unknown", std::move(unknown)},
      {"visited", result.visited},
      {"budgetExhausted", result.budget_exhausted},
      {"dot", answer.dot},
      {"nodes", std::move(nodes)},
      {"edges", std::move(edges)},
  };
  if (result.retainer != kNoObject)
    out["retainerObject"] = object_brief_json(heap, result.retainer);
  out["split"] = answer.split.split;
  if (answer.split.split) {
    json::array groups;
    for (const auto& group : answer.split.groups) {
      groups.push_back(
          json::object{{"retainer", group.container == kNoObject
                                        ? json::value(nullptr)
                                        : json::value(object_brief_json(heap, group.container))},
                       {"samples", addresses_json(heap, group.samples)}});
    }
    out["groups"] = std::move(groups);
  }
  if (std::string note = retainer_note(heap, answer); !note.empty()) out["retainerNote"] = note;
  if (!answer.retainer_root_path.path.empty()) {
    out["rootPath"] = root_path_json(heap, answer.retainer_root_path);
  }
  return out;
}

namespace {

json::object owner_brief_json(const Heap& heap, const Owner& owner) {
  if (owner.object == kNoObject)
    return json::object{{"address", nullptr}, {"objects", owner.objects}};
  json::object out = object_brief_json(heap, owner.object);
  out["retained"] = owner.retained;
  out["objects"] = owner.objects;
  return out;
}

json::value dominator_json(const Heap& heap, ObjectIndex idom) {
  if (idom == kNoObject) return nullptr;
  if (idom == DominatorTree::kSuperRoot) return "ROOT";
  return json::value(format_address(heap.address(idom)));
}

}  // namespace

json::array path_tree_json(const Heap& heap, const PathTreeNode& node) {
  json::array children;
  for (const auto& child : node.children) {
    json::object item{{"key", child.key}, {"count", child.count}};
    if (child.example != kNoObject) item["example"] = format_address(heap.address(child.example));
    item["children"] = path_tree_json(heap, child);
    children.push_back(std::move(item));
  }
  return children;
}

json::object owner_json(const Heap& heap, const OwnerReport& report) {
  json::array owners;
  for (const auto& owner : report.owners) owners.push_back(owner_brief_json(heap, owner));
  // The owner's path in Ruby's words, so a client prints it without asking
  // for each hop's name (pathNames[0] names the root, as pathToRoot's).
  json::array names;
  if (!report.owner_path.path.empty()) {
    for (auto& name : path_names(heap, report.owner_path.root, report.owner_path.path,
                                 path_vias(heap, report.owner_path.path)))
      names.emplace_back(name);
  }
  return json::object{
      {"owner", report.owner.object == kNoObject
                    ? json::value(nullptr)
                    : json::value(owner_brief_json(heap, report.owner))},
      {"owners", std::move(owners)},
      {"objects", report.set.size()},
      {"unreachable", addresses_json(heap, report.unreachable)},
      {"root", report.owner_path.root},
      {"path", addresses_json(heap, report.owner_path.path)},
      {"pathNames", std::move(names)},
      {"paths", json::object{{"key", report.merged_paths.key},
                             {"count", report.merged_paths.count},
                             {"children", path_tree_json(heap, report.merged_paths)}}},
      {"dot", merged_paths_dot(report.merged_paths)},
  };
}

json::object explanation_json(const Heap& target, const LeakDiff& diff,
                              const std::vector<LeakExplanation>& leaks, std::size_t samples) {
  json::array out;
  for (const auto& leak : leaks) {
    json::array owners;
    for (const auto& owner : leak.owners) owners.push_back(owner_brief_json(target, owner));
    std::vector<ObjectIndex> shown(
        leak.group.samples.begin(),
        leak.group.samples.begin() + std::min(samples, leak.group.samples.size()));
    out.push_back(json::object{{"key", leak.group.key},
                               {"count", leak.group.count},
                               {"memsize", leak.group.memsize},
                               {"retained", leak.retained},
                               {"owners", std::move(owners)},
                               {"root", leak.path.root},
                               {"path", addresses_json(target, leak.path.path)},
                               {"samples", addresses_json(target, shown)}});
  }
  json::array warnings;
  for (const auto& warning : diff.warnings) warnings.emplace_back(warning);
  return json::object{
      {"leaks", std::move(out)},
      {"total", json::object{{"count", diff.total_count}, {"memsize", diff.total_memsize}}},
      {"rule", diff.rule},
      {"compacted", diff.compacted},
      {"warnings", std::move(warnings)}};
}

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

json::object retained_json(const Heap& heap, ObjectIndex i) {
  const DominatorTree& tree = heap.dominators();
  json::object out = object_brief_json(heap, i);
  out["reachable"] = tree.reachable(i);
  out["retained"] = tree.retained(i);
  out["dominator"] = dominator_json(heap, tree.idom(i));
  return out;
}

json::object top_retainers_json(const Heap& heap, std::size_t limit, bool by_class) {
  const DominatorTree& tree = heap.dominators();
  json::object out{{"reachable", tree.reachable_count()},
                   {"unreachable", json::object{{"count", tree.unreachable_count()},
                                                {"memsize", tree.unreachable_bytes()}}}};
  if (by_class) {
    json::array classes;
    for (const auto& entry : top_retainers_by_class(heap, limit)) {
      classes.push_back(
          json::object{{"key", entry.key}, {"count", entry.count}, {"retained", entry.retained}});
    }
    out["classes"] = std::move(classes);
  } else {
    json::array retainers;
    for (const auto& entry : top_retainers(heap, limit)) {
      json::object item = object_brief_json(heap, entry.object);
      item["retained"] = entry.retained;
      item["dominator"] = dominator_json(heap, tree.idom(entry.object));
      retainers.push_back(std::move(item));
    }
    out["retainers"] = std::move(retainers);
  }
  return out;
}

json::value string_value_json(const Heap& heap, ObjectIndex i) {
  auto text = read_record_text(heap, i);
  if (!text) return nullptr;
  boost::system::error_code error;
  json::value record = json::parse(*text, error);
  if (error || !record.is_object()) return nullptr;
  const json::value* value = record.as_object().if_contains("value");
  if (!value || !value->is_string()) return nullptr;
  std::string content(value->as_string());
  if (content.size() > 200) content = std::string(text::utf8_prefix(content, 200)) + "...";
  return json::value(content);
}

json::object duplicate_strings_json(const Heap& heap,
                                    const std::vector<DuplicateStrings>& strings) {
  json::array out;
  for (const auto& dup : strings) {
    out.push_back(json::object{{"value", string_value_json(heap, dup.samples.front())},
                               {"count", dup.count},
                               {"memsize", dup.memsize},
                               {"wasted", dup.wasted},
                               {"samples", addresses_json(heap, dup.samples)}});
  }
  return json::object{{"strings", std::move(out)}};
}

}  // namespace heapleak::results
