#include "core/string_pool.h"

namespace heapleak {

StringPool::StringPool() {
  strings_.emplace_back();
  ids_.emplace(strings_.back(), kEmpty);
}

std::uint32_t StringPool::intern(std::string_view text) {
  if (auto found = ids_.find(text); found != ids_.end()) return found->second;
  const auto id = static_cast<std::uint32_t>(strings_.size());
  strings_.emplace_back(text);
  ids_.emplace(strings_.back(), id);
  return id;
}

std::size_t StringPool::bytes_used() const {
  std::size_t total = 0;
  for (const auto& s : strings_) total += sizeof(std::string) + s.capacity() + 32;
  return total;
}

}  // namespace heapleak
