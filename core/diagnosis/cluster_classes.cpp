#include "core/diagnosis/cluster_classes.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "core/heap/naming.h"
#include "core/heap/naming_runtime.h"

namespace heapleak {
namespace {

// Grouping by class, run-time classes fold: 1,500 classes made by one line
// are one group ("subclasses of BaseForm"), and so are their instances
// ("anonymous subclass of BaseForm"), instead of a group per class.
class ClassFolding {
 public:
  ClassFolding(const Heap& heap, const std::vector<ObjectIndex>& objects) : heap_(heap) {
    for (ObjectIndex i : objects) {
      if (!is_class(i)) continue;
      if (std::string family = family_of(i); !family.empty()) ++family_size_[family];
    }
  }
  // The folded key and name of `i`, or nullopt to keep its own.
  std::optional<std::pair<std::string, std::string>> fold(ObjectIndex i) {
    if (is_class(i)) {
      std::string family = family_of(i);
      if (family.empty() || family_size_[family] < kFoldAt) return std::nullopt;
      return std::pair{"CLASS:(" + family + ")", family};
    }
    const ObjectIndex klass = heap_.class_index(i);
    if (klass == kNoObject || heap_.type(i) == ObjectType::kClass || !heap_.own_name(klass).empty())
      return std::nullopt;
    std::string kind = kind_of(klass);
    if (kind.empty() || kind == "singleton class") return std::nullopt;
    return std::pair{"#<" + kind + ">", kind};
  }

 private:
  static constexpr std::uint64_t kFoldAt = 3;
  bool is_class(ObjectIndex i) const {
    return heap_.type(i) == ObjectType::kClass || heap_.type(i) == ObjectType::kModule;
  }
  const std::string& family_of(ObjectIndex klass) {
    auto [it, inserted] = family_.try_emplace(klass);
    if (inserted) it->second = class_family(heap_, klass);
    return it->second;
  }
  const std::string& kind_of(ObjectIndex klass) {
    auto [it, inserted] = kind_.try_emplace(klass);
    if (inserted) it->second = class_kind(heap_, klass);
    return it->second;
  }
  const Heap& heap_;
  std::unordered_map<ObjectIndex, std::string> family_, kind_;
  std::unordered_map<std::string, std::uint64_t> family_size_;
};

}  // namespace

std::vector<ClusterClass> cluster_classes(const Heap& heap, const std::vector<ObjectIndex>& objects,
                                          GroupBy group_by) {
  std::vector<ClusterClass> out;
  std::unordered_map<std::string, std::size_t> slot;
  std::vector<std::map<std::string, std::uint64_t>> sites;
  // Per group, how many objects of each class: a group is named by its
  // majority, not by whichever object came first.
  std::vector<std::unordered_map<ObjectIndex, std::pair<std::uint64_t, ObjectIndex>>> members;
  std::optional<ClassFolding> folding;
  if (group_by == GroupBy::kClass) folding.emplace(heap, objects);
  std::vector<char> folded_name;
  for (ObjectIndex i : objects) {
    std::optional<std::pair<std::string, std::string>> folded;
    if (folding) folded = folding->fold(i);
    std::string key = folded ? folded->first : group_key(heap, i, group_by);
    auto [it, inserted] = slot.try_emplace(key, out.size());
    if (inserted) {
      out.push_back(ClusterClass{key,
                                 group_by != GroupBy::kClass ? key
                                 : folded                    ? folded->second
                                                             : "",
                                 0,
                                 0,
                                 {}});
      sites.emplace_back();
      members.emplace_back();
      folded_name.push_back(folded || group_by != GroupBy::kClass);
    }
    ClusterClass& entry = out[it->second];
    ++entry.count;
    entry.memsize += heap.memsize(i);
    if (!folded_name[it->second]) {
      // Classes and modules name themselves; other objects by their class.
      const ObjectType type = heap.type(i);
      const ObjectIndex by =
          type == ObjectType::kClass || type == ObjectType::kModule ? i : heap.class_index(i);
      auto& member = members[it->second][by];
      if (member.first++ == 0) member.second = i;
    }
    if (std::string site = allocation_site(heap, i); !site.empty()) ++sites[it->second][site];
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!folded_name[k]) {
      ObjectIndex best = kNoObject;
      std::uint64_t most = 0;
      for (const auto& [by, member] : members[k]) {
        // ties: the lower address, so two runs name the group alike
        if (member.first > most || (member.first == most && best != kNoObject &&
                                    heap.address(member.second) < heap.address(best))) {
          most = member.first;
          best = member.second;
        }
      }
      out[k].name = ruby_name(heap, best);
    }
    for (auto& [site, count] : sites[k]) out[k].sites.push_back(SiteCount{site, count});
    std::sort(out[k].sites.begin(), out[k].sites.end(), [](const auto& a, const auto& b) {
      return a.count != b.count ? a.count > b.count : a.site < b.site;
    });
    if (out[k].sites.size() > 5) out[k].sites.resize(5);
  }
  std::sort(out.begin(), out.end(), [](const ClusterClass& a, const ClusterClass& b) {
    if (a.memsize != b.memsize) return a.memsize > b.memsize;
    return a.key < b.key;
  });
  return out;
}

}  // namespace heapleak
