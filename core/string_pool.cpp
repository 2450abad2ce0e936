#include "core/string_pool.h"

namespace heapleak {

StringPool::StringPool() {
  strings_.emplace_back();
  views_.push_back(strings_.back());
  ids_.emplace(strings_.back(), kEmpty);
}

StringPool StringPool::view(std::span<const std::uint64_t> ends, const char* text,
                            std::shared_ptr<const void> keep) {
  StringPool pool{ViewTag{}};
  pool.views_.reserve(ends.size());
  std::uint64_t begin = 0;
  for (std::uint64_t end : ends) {
    pool.views_.emplace_back(text + begin, end - begin);
    begin = end;
  }
  pool.keep_ = std::move(keep);
  return pool;
}

std::uint32_t StringPool::intern(std::string_view text) {
  if (text.empty()) return kEmpty;
  // Cheap slot choice: length and the last bytes, where paths and names differ.
  const std::size_t n = text.size();
  const std::size_t slot = (n * 31 + static_cast<unsigned char>(text[n - 1]) * 7 +
                            static_cast<unsigned char>(text[n / 2])) &
                           255;
  CacheEntry& cached = recent_[slot];
  if (cached.text == text) return cached.id;
  std::uint32_t id;
  if (auto found = ids_.find(text); found != ids_.end()) {
    id = found->second;
  } else {
    id = static_cast<std::uint32_t>(strings_.size());
    strings_.emplace_back(text);
    views_.push_back(strings_.back());
    ids_.emplace(strings_.back(), id);
  }
  cached = CacheEntry{strings_[id], id};
  return id;
}

std::size_t StringPool::bytes_used() const {
  // One formula for owned and viewed pools, so a heap reopened from the cache
  // reports (and is charged) what it did when parsed.
  std::size_t total = views_.size() * sizeof(std::string_view);
  for (const auto& s : views_) total += sizeof(std::string) + s.size() + 32;
  return total;
}

}  // namespace heapleak
