#include "core/base/string_pool.h"

#include <cassert>
#include <cstring>

namespace heapleak {
namespace {

// A fast 64-bit hash of the whole string, a word at a time (std::hash's
// byte loop showed in load profiles). Not for adversaries: a dump comes
// from the user's own process.
std::uint64_t text_hash(std::string_view text) {
  constexpr std::uint64_t kMix = 0xff51afd7ed558ccdull;
  const char* p = text.data();
  std::size_t n = text.size();
  std::uint64_t h = n * 0x9E3779B97F4A7C15ull;
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    h = (h ^ word) * kMix;
    h ^= h >> 32;
  }
  if (n > 0) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, n);
    h = (h ^ word) * kMix;
  }
  h ^= h >> 29;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 32);
}

// The cache's slot: from the length and the last eight bytes (where paths
// and names differ most), cheaper than the whole hash for the hits most
// interns are.
std::size_t recent_slot(std::string_view text) {
  const std::size_t n = text.size();
  std::uint64_t tail;
  if (n >= 8) {
    std::memcpy(&tail, text.data() + n - 8, 8);
  } else {
    tail = static_cast<unsigned char>(text[n - 1]) * 7 + static_cast<unsigned char>(text[n / 2]);
  }
  return static_cast<std::size_t>(((tail ^ n) * 0x9E3779B97F4A7C15ull) >> 56);
}

}  // namespace

StringPool::StringPool() : table_(256) {
  strings_.emplace_back();
  views_.push_back(strings_.back());
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
  assert(!table_.empty() && "a viewed pool is read-only");
  if (text.empty()) return kEmpty;
  CacheEntry& cached = recent_[recent_slot(text)];
  if (cached.text == text) return cached.id;
  const std::uint64_t hash = text_hash(text);
  const std::size_t mask = table_.size() - 1;
  std::size_t at = static_cast<std::size_t>(hash) & mask;
  for (; table_[at].id != kEmpty; at = (at + 1) & mask) {
    const Slot& slot = table_[at];
    if (slot.hash == hash && slot.size == text.size() &&
        std::memcmp(slot.data, text.data(), text.size()) == 0) {
      cached = CacheEntry{views_[slot.id], slot.id};
      return slot.id;
    }
  }
  const auto id = static_cast<std::uint32_t>(strings_.size());
  const std::string& kept = strings_.emplace_back(text);
  views_.push_back(kept);
  table_[at] = Slot{hash, kept.data(), static_cast<std::uint32_t>(kept.size()), id};
  cached = CacheEntry{kept, id};
  if (2 * id > table_.size()) grow_table();
  return id;
}

void StringPool::grow_table() {
  std::vector<Slot> bigger(table_.size() * 2);
  const std::size_t mask = bigger.size() - 1;
  for (const Slot& slot : table_) {
    if (slot.id == kEmpty) continue;
    std::size_t at = static_cast<std::size_t>(slot.hash) & mask;
    while (bigger[at].id != kEmpty) at = (at + 1) & mask;
    bigger[at] = slot;
  }
  table_.swap(bigger);
}

std::size_t StringPool::bytes_used() const {
  // One formula for owned and viewed pools, so a heap reopened from the cache
  // reports (and is charged) what it did when parsed.
  std::size_t total = views_.size() * sizeof(std::string_view);
  for (const auto& s : views_) total += sizeof(std::string) + s.size() + 32;
  return total;
}

}  // namespace heapleak
