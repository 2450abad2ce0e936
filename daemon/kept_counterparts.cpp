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

void KeptCounterparts::keep(const std::shared_ptr<const Heap>& target, const std::string& path,
                            std::shared_ptr<const Counterparts> counterparts) {
  std::lock_guard lock(mutex_);
  std::erase_if(kept_, [&](const Kept& kept) {
    return kept.target.expired() || (kept.path == path && kept.target.lock() == target);
  });
  if (kept_.size() >= kKept) kept_.erase(kept_.begin());
  kept_.push_back(Kept{target, path, std::move(counterparts)});
}

}  // namespace heapleak::daemon
