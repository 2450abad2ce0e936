#include "daemon/kept_counterparts.h"

namespace heapleak::daemon {

std::shared_ptr<const Counterparts> KeptCounterparts::find(
    const Heap& target, const std::string& path, const FileIdentity& now,
    std::optional<FileIdentity>* changed_from) const {
  std::lock_guard lock(mutex_);
  std::erase_if(kept_, [](const Kept& kept) { return kept.target.expired(); });
  if (changed_from) changed_from->reset();
  for (const Kept& kept : kept_) {
    if (kept.path != path || kept.target.lock().get() != &target) continue;
    if (kept.counterparts->dump.report.identity == now) return kept.counterparts;
    if (changed_from) *changed_from = kept.counterparts->dump.report.identity;
  }
  return nullptr;
}

std::vector<std::shared_ptr<const Heap>> KeptCounterparts::keep(
    const std::shared_ptr<const Heap>& target, const std::string& path,
    std::shared_ptr<const Counterparts> counterparts) {
  std::lock_guard lock(mutex_);
  std::erase_if(kept_, [&](const Kept& kept) {
    return kept.target.expired() || (kept.path == path && kept.target.lock() == target);
  });
  std::vector<std::shared_ptr<const Heap>> changed{target};
  if (kept_.size() >= kKept) {
    if (auto dropped = kept_.front().target.lock(); dropped && dropped != target)
      changed.push_back(std::move(dropped));
    kept_.erase(kept_.begin());
  }
  kept_.push_back(Kept{target, path, std::move(counterparts)});
  return changed;
}

std::uint64_t KeptCounterparts::bytes_for(const Heap& target) const {
  std::lock_guard lock(mutex_);
  std::uint64_t bytes = 0;
  for (const Kept& kept : kept_)
    if (kept.target.lock().get() == &target) bytes += kept.counterparts->bytes_used();
  return bytes;
}

}  // namespace heapleak::daemon
