#include "daemon/heap_store.h"

#include <algorithm>

#include "core/loading/loader.h"

namespace heapleak::daemon {

std::optional<HeapEntry> HeapStore::find(const std::string& id_or_name, bool* still_loading) const {
  std::lock_guard lock(mutex_);
  for (const auto& entry : entries_) {
    if (entry.id == id_or_name) return entry;
  }
  for (const auto& entry : entries_) {
    if (entry.name == id_or_name) return entry;
  }
  if (still_loading) {
    *still_loading = std::any_of(running_.begin(), running_.end(),
                                 [&](const RunningLoad& load) { return load.name == id_or_name; });
  }
  return std::nullopt;
}

std::optional<HeapEntry> HeapStore::find_by_path(const std::string& path) const {
  std::lock_guard lock(mutex_);
  for (auto entry = entries_.rbegin(); entry != entries_.rend(); ++entry) {
    if (entry->path == path) return *entry;
  }
  return std::nullopt;
}

std::vector<HeapEntry> HeapStore::list() const {
  std::lock_guard lock(mutex_);
  return entries_;
}

bool HeapStore::admit(std::uint64_t estimate, std::string& message) {
  std::lock_guard lock(mutex_);
  if (max_bytes_ != 0 && resident_ + reserved_ + estimate > max_bytes_) {
    message = "loading needs about " + std::to_string(estimate >> 20) + " MiB but only " +
              std::to_string((max_bytes_ - std::min(max_bytes_, resident_ + reserved_)) >> 20) +
              " MiB of the --max-memory budget (" + std::to_string(max_bytes_ >> 20) +
              " MiB) is free; unload a heap or raise --max-memory";
    return false;
  }
  reserved_ += estimate;
  return true;
}

bool HeapStore::admit_analysis(std::uint64_t estimate, std::uint64_t& available) {
  std::lock_guard lock(mutex_);
  const std::uint64_t used = resident_ + reserved_;
  available = max_bytes_ == 0 ? UINT64_MAX : max_bytes_ - std::min(max_bytes_, used);
  if (max_bytes_ != 0 && used + estimate > max_bytes_) return false;
  reserved_ += estimate;
  return true;
}

void HeapStore::release(std::uint64_t reserved) {
  std::lock_guard lock(mutex_);
  reserved_ -= std::min(reserved_, reserved);
}

void HeapStore::recharge(const std::string& id) {
  std::lock_guard lock(mutex_);
  for (auto& entry : entries_) {
    if (entry.id != id) continue;
    const std::uint64_t now =
        entry.heap->bytes_used() + entry.heap->analyses_bytes_used() + entry.beside;
    resident_ = resident_ - std::min(resident_, entry.charged) + now;
    entry.charged = now;
    return;
  }
}

void HeapStore::charge_beside(const Heap& heap, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  for (auto& entry : entries_) {
    if (entry.heap.get() != &heap) continue;
    const std::uint64_t now = entry.charged - std::min(entry.charged, entry.beside) + bytes;
    resident_ = resident_ - std::min(resident_, entry.charged) + now;
    entry.charged = now;
    entry.beside = bytes;
    return;
  }
}

bool HeapStore::extend(std::uint64_t& reserved, std::uint64_t bytes) {
  if (bytes <= reserved) return true;
  std::lock_guard lock(mutex_);
  const std::uint64_t more = bytes - reserved;
  if (max_bytes_ != 0 && resident_ + reserved_ + more > max_bytes_) return false;
  reserved_ += more;
  reserved = bytes;
  return true;
}

bool HeapStore::looks_like_id(const std::string& name) {
  return name.size() > 1 && name[0] == 'h' &&
         std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string HeapStore::begin_load(const std::string& wanted_name) {
  std::lock_guard lock(mutex_);
  // A file named like an id ("h2") gets a suffix, as a taken name does.
  std::string name = wanted_name;
  for (int k = 2; name_taken_locked(name) || looks_like_id(name); ++k)
    name = wanted_name + "-" + std::to_string(k);
  // The id is taken now, not when the load ends: loads sent together (the
  // editor's Load Heaps) end in any order, yet get ids in the order asked.
  running_.push_back(RunningLoad{name, next_id_++, {}});
  return name;
}

void HeapStore::finish_load(const std::string& name, std::string path,
                            std::shared_ptr<const Heap> heap, std::uint64_t estimate,
                            const std::function<void(const HeapEntry&)>& announce) {
  std::vector<std::function<void()>> waiters;
  HeapEntry entry;
  {
    std::lock_guard lock(mutex_);
    reserved_ -= std::min(reserved_, estimate);
    const std::uint64_t charged = heap->bytes_used() + heap->analyses_bytes_used();
    resident_ += charged;
    std::optional<RunningLoad> load = end_load_locked(name);
    const std::uint64_t number = load ? load->number : next_id_++;
    entry = HeapEntry{
        "h" + std::to_string(number), name, std::move(path), std::move(heap), charged, number};
    // Listed by id: a load that ends before an earlier one lands after it.
    auto later = std::find_if(entries_.begin(), entries_.end(),
                              [&](const HeapEntry& held) { return held.number > number; });
    entries_.insert(later, entry);
    if (load) waiters = std::move(load->waiters);
  }
  // Outside the lock: a waiter may look the heap up straight away.
  announce(entry);
  for (auto& resume : waiters) resume();
}

void HeapStore::abandon_load(const std::string& name, std::uint64_t estimate) {
  std::vector<std::function<void()>> waiters;
  {
    std::lock_guard lock(mutex_);
    reserved_ -= std::min(reserved_, estimate);
    // The id was never shown (ids come in loadHeap's reply): the last one
    // taken goes back, so loads one after the other stay h1, h2, h3 around
    // a failed one. An id taken before a later load's stays a gap.
    std::optional<RunningLoad> load = end_load_locked(name);
    if (!load) return;
    if (load->number + 1 == next_id_) --next_id_;
    waiters = std::move(load->waiters);
  }
  for (auto& resume : waiters) resume();
}

std::vector<std::string> HeapStore::loading_names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const auto& load : running_) names.push_back(load.name);
  return names;
}

bool HeapStore::when_load_ends(const std::string& name, std::function<void()> resume) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(running_.begin(), running_.end(),
                         [&](const RunningLoad& load) { return load.name == name; });
  if (it == running_.end()) return false;
  it->waiters.push_back(std::move(resume));
  return true;
}

std::optional<HeapStore::RunningLoad> HeapStore::end_load_locked(const std::string& name) {
  auto it = std::find_if(running_.begin(), running_.end(),
                         [&](const RunningLoad& load) { return load.name == name; });
  if (it == running_.end()) return std::nullopt;
  RunningLoad load = std::move(*it);
  running_.erase(it);
  return load;
}

bool HeapStore::name_taken_locked(const std::string& name) const {
  auto same = [&](const auto& item) { return item.name == name; };
  return std::any_of(entries_.begin(), entries_.end(), same) ||
         std::any_of(running_.begin(), running_.end(), same);
}

bool HeapStore::remove(const std::string& id_or_name) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const HeapEntry& e) { return e.id == id_or_name; });
  if (it == entries_.end()) {
    it = std::find_if(entries_.begin(), entries_.end(),
                      [&](const HeapEntry& e) { return e.name == id_or_name; });
  }
  if (it == entries_.end()) return false;
  resident_ -= std::min(resident_, it->charged);
  entries_.erase(it);
  return true;
}

std::uint64_t HeapStore::used_bytes() const {
  std::lock_guard lock(mutex_);
  return resident_ + reserved_;
}

}  // namespace heapleak::daemon
