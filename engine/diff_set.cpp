#include "engine/diff_set.h"

#include <utility>

#include "core/diagnosis/leak_diff.h"

namespace heapleak::engine {

DiffSet::DiffSet(std::span<const Heap* const> heaps)
    : DiffSet(std::vector<const Heap*>(heaps.begin(), heaps.end()), {}) {}

DiffSet::DiffSet(std::vector<const Heap*> heaps,
                 std::vector<std::shared_ptr<const OtherDump>> others)
    : target_(diff_roles(heaps.size()).target),
      heaps_(std::move(heaps)),
      owned_(std::move(others)) {
  owned_.resize(heaps_.size());
  // Each held dump read once for what it says of B's objects.
  const Heap& b = target();
  others_.assign(heaps_.size(), nullptr);
  for (std::size_t k = 0; k < heaps_.size(); ++k) {
    if (k == target_) continue;
    if (!owned_[k]) owned_[k] = std::make_shared<OtherDump>(b, *heaps_[k]);
    others_[k] = owned_[k].get();
  }
  target_summary_ = summary_of(b);
}

const DumpSummary& DiffSet::summary(std::size_t k) const {
  return k == target_ ? target_summary_ : others_[k]->summary();
}

void DiffSet::replace(std::size_t k, std::shared_ptr<const Heap> heap) {
  heaps_[k] = heap.get();
  owned_[k] = std::make_shared<OtherDump>(target(), *heap);
  others_[k] = owned_[k].get();
  kept_.push_back(std::move(heap));
}

}  // namespace heapleak::engine
