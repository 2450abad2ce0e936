// Interned strings: class and module names, files, methods, DATA struct and
// IMEMO kinds, root categories. Each distinct string is stored once and
// named by a uint32_t id; id 0 is always the empty string ("absent").
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace heapleak {

class StringPool {
 public:
  static constexpr std::uint32_t kEmpty = 0;

  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  // Most records repeat a recent file or method name: a small direct-mapped
  // cache answers those without hashing the whole string.
  std::uint32_t intern(std::string_view text);
  std::string_view at(std::uint32_t id) const { return strings_[id]; }
  std::size_t size() const { return strings_.size(); }
  std::size_t bytes_used() const;

 private:
  // A deque never moves its elements, so the map's views stay valid.
  std::deque<std::string> strings_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;
  struct CacheEntry {
    std::string_view text;
    std::uint32_t id = kEmpty;
  };
  std::array<CacheEntry, 256> recent_{};
};

}  // namespace heapleak
