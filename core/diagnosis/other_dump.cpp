#include "core/diagnosis/other_dump.h"

#include <stdexcept>
#include <utility>

namespace heapleak {

OtherDump::OtherDump(const Heap& target, const Heap& held)
    : counterparts_(std::make_shared<const Counterparts>(counterparts_of(target, held))),
      held_(&held) {}

OtherDump::OtherDump(Counterparts streamed, Loader load)
    : OtherDump(std::make_shared<const Counterparts>(std::move(streamed)), std::move(load)) {}

OtherDump::OtherDump(std::shared_ptr<const Counterparts> streamed, Loader load)
    : counterparts_(std::move(streamed)), load_(std::move(load)) {}

std::shared_ptr<const Heap> OtherDump::heap() const {
  if (auto at_hand = heap_if_loaded()) return at_hand;
  if (!load_) throw std::runtime_error(report().path + ": its heap is needed and cannot be read");
  std::shared_ptr<const Heap> heap = load_();
  if (!heap) throw std::runtime_error(report().path + ": its heap could not be read");
  ++loads_;
  loaded_ = heap;
  return heap;
}

std::shared_ptr<const Heap> OtherDump::heap_if_loaded() const {
  // A held heap outlives the diff: shared without ownership.
  if (held_) return std::shared_ptr<const Heap>(std::shared_ptr<const Heap>(), held_);
  return loaded_.lock();
}

}  // namespace heapleak
