// Interned strings: class and module names, files, methods, DATA struct and
// IMEMO kinds, root categories. Each distinct string is stored once and
// named by a uint32_t id; id 0 is always the empty string ("absent"). A pool
// either owns its strings (while a load interns them) or views them in a
// cache image's mapping (core/heap_image_reader.h), read-only.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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
  std::string_view at(std::uint32_t id) const { return views_[id]; }
  std::size_t size() const { return views_.size(); }
  std::size_t bytes_used() const;

  // A read-only pool over `text`: string k is text[ends[k-1] .. ends[k])
  // (string 0, the empty one, is ends[0] == 0). `keep` keeps `text` alive.
  // Interning into it is a programming error.
  static StringPool view(std::span<const std::uint64_t> ends, const char* text,
                         std::shared_ptr<const void> keep);

 private:
  struct ViewTag {};
  explicit StringPool(ViewTag) {}

  // Every string by id, into strings_ or into the viewed image.
  std::vector<std::string_view> views_;
  std::shared_ptr<const void> keep_;
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
