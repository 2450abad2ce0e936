#include "core/reading/prefaulter.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "core/base/page_size.h"

namespace heapleak {

Prefaulter::Prefaulter(std::size_t ahead_bytes) : ahead_(ahead_bytes), thread_([this] { run(); }) {}

Prefaulter::~Prefaulter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_one();
  thread_.join();
}

bool Prefaulter::supported() {
  // An empty range is valid: EINVAL says the advice itself is unknown.
  static const bool known = [] {
    void* page =
        ::mmap(nullptr, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return false;
    const bool ok = ::madvise(page, page_size(), MADV_POPULATE_WRITE) == 0;
    ::munmap(page, page_size());
    return ok;
  }();
  return known;
}

void Prefaulter::advance(std::span<const Range> ranges) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    published_.assign(ranges.begin(), ranges.end());
    fresh_ = true;
  }
  changed_.notify_one();
}

void Prefaulter::run() {
  if (!supported()) return;
  std::vector<Range> ranges;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || fresh_; });
      if (stopping_) return;
      ranges.swap(published_);
      fresh_ = false;
    }
    for (const Range& range : ranges) {
      if (failed_) return;
      populate(range);
    }
  }
}

void Prefaulter::populate(const Range& range) {
  if (range.base == nullptr || range.capacity_bytes == 0) return;
  auto found = std::find_if(progress_.begin(), progress_.end(),
                            [&](const Progress& p) { return p.base == range.base; });
  if (found == progress_.end()) {
    progress_.push_back(Progress{range.base, 0});
    found = progress_.end() - 1;
  }
  // Only memory the loader will write next: never behind it (it faulted
  // that itself), never past the reservation.
  const std::size_t from = std::max(found->populated_bytes, range.used_bytes);
  const std::size_t to = range.whole ? range.capacity_bytes
                                     : std::min(range.capacity_bytes, range.used_bytes + ahead_);
  if (to <= from) return;
  const auto base = reinterpret_cast<std::uintptr_t>(range.base);
  const std::uintptr_t start = (base + from) & ~(page_size() - 1);
  const std::uintptr_t end = base + to;
  if (::madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_WRITE) != 0 &&
      errno == EINVAL) {
    failed_ = true;  // unknown advice: give up quietly
    return;
  }
  // Other errors (ENOMEM: the range was unmapped as the column moved) are
  // left to the loader, which faults in what it writes anyway.
  found->populated_bytes = to;
}

}  // namespace heapleak
