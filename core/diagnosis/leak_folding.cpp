#include "core/diagnosis/leak_folding.h"

#include <algorithm>
#include <unordered_map>

#include "core/diagnosis/cluster_classes.h"
#include "core/graph/dominators.h"
#include "core/graph/root_paths.h"
#include "core/heap/naming.h"
#include "core/heap/naming_runtime.h"

namespace heapleak {
namespace {

constexpr std::size_t kNoRow = SIZE_MAX;

// Moves `from`'s objects and totals into `into` (classes and owners are
// recomputed by the caller once every row is folded); `alike`: one more
// holder of the same leak, counted in `instances`.
void absorb(LeakCluster& into, LeakCluster& from, bool alike) {
  into.objects.insert(into.objects.end(), from.objects.begin(), from.objects.end());
  into.count += from.count;
  into.memsize += from.memsize;
  into.retained += from.retained;
  if (alike) into.instances += from.instances;
  into.grown_in_place = into.grown_in_place || from.grown_in_place;
  from.objects.clear();
  from.count = 0;
}

// For each row, the row whose leaked objects sit on its holder's root path
// (the nearest to the holder), or whose holder does with a block below it
// (a subscriber list -> Proc -> the instance it captured -> its @timings: the
// list keeps those instances alive, their growth is its leak); followed to
// the top; kNoRow when none.
std::vector<std::size_t> owner_rows(const Heap& target, const std::vector<LeakCluster>& rows,
                                    std::vector<char>& through_block) {
  std::unordered_map<ObjectIndex, std::size_t> row_of, holding;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (ObjectIndex i : rows[r].objects) row_of.emplace(i, r);
    if (rows[r].holder != kNoObject && !rows[r].grown_in_place) holding.emplace(rows[r].holder, r);
  }
  const RootPaths& paths = target.root_paths();
  std::vector<std::size_t> owner(rows.size(), kNoRow);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].holder == kNoObject) continue;
    bool block = false;  // a Proc between the holder and y
    for (ObjectIndex y = paths.parent(rows[r].holder); y != kNoObject; y = paths.parent(y)) {
      if (const auto it = row_of.find(y); it != row_of.end() && it->second != r) {
        owner[r] = it->second;
        break;
      }
      if (const auto it = holding.find(y); block && it != holding.end() && it->second != r) {
        owner[r] = it->second;
        through_block[r] = 1;
        break;
      }
      block = block || is_proc(target, y);
    }
  }
  // Path ancestors are strictly shallower, so following owners ends.
  for (std::size_t r = 0; r < rows.size(); ++r)
    while (owner[r] != kNoRow && owner[owner[r]] != kNoRow) owner[r] = owner[owner[r]];
  return owner;
}

}  // namespace

void fold_rows(const Heap& target, std::vector<LeakCluster>& rows, GroupBy group_by) {
  if (rows.size() < 2) return;
  std::vector<char> grew(rows.size(), 0), absorbed(rows.size(), 0), through_block(rows.size(), 0);
  const std::vector<std::size_t> owner = owner_rows(target, rows, through_block);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (owner[r] == kNoRow) continue;
    if (through_block[r]) {
      // Said on the row: "and 200 x Array in ShopApp.@timings grow with it",
      // named by the object that holds each (not by the reach both rows share).
      const auto& names = rows[r].path_names;
      const std::string label =
          names.size() >= 2 ? ruby_name(target, rows[r].holder) + " in " + names[names.size() - 2]
                            : rows[r].key;
      auto& with = rows[owner[r]].grows_with;
      const auto it =
          std::find_if(with.begin(), with.end(), [&](const auto& w) { return w.first == label; });
      if (it == with.end())
        with.emplace_back(label, rows[r].instances);
      else
        it->second += rows[r].instances;
    }
    absorb(rows[owner[r]], rows[r], false);
    grew[owner[r]] = absorbed[r] = 1;
  }
  // Alike rows: the one retaining most stands for them (holder, path, growth).
  std::unordered_map<std::string, std::size_t> first;
  std::vector<std::size_t> order(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) order[r] = r;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return rows[x].retained > rows[y].retained;
  });
  for (std::size_t r : order) {
    if (absorbed[r] || rows[r].holder == kNoObject) continue;
    auto [it, inserted] = first.try_emplace(rows[r].signature, r);
    if (inserted) continue;
    absorb(rows[it->second], rows[r], true);
    grew[it->second] = absorbed[r] = 1;
  }
  const DominatorTree& tree = target.dominators();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    LeakCluster& row = rows[r];
    if (!grew[r] || absorbed[r]) continue;
    if (row.instances > 1) row.key = std::to_string(row.instances) + " x " + row.key;
    std::sort(row.objects.begin(), row.objects.end());
    row.classes = cluster_classes(target, row.objects, group_by);
    std::vector<ObjectIndex> reachable;
    for (ObjectIndex i : row.objects)
      if (tree.reachable(i)) reachable.push_back(i);
    row.owners = owners_of(target, reachable);
  }
  std::size_t kept = 0;
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (!absorbed[r]) {
      if (kept != r) rows[kept] = std::move(rows[r]);
      ++kept;
    }
  rows.resize(kept);
}

}  // namespace heapleak
