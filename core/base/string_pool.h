// Interned strings: class and module names, files, methods, DATA struct and
// IMEMO kinds, root categories. Each distinct string is stored once and
// named by a uint32_t id; id 0 is always the empty string ("absent"). A pool
// either owns its strings (while a load interns them) or views them in a
// cache image's mapping (core/images/heap_image_reader.h), read-only.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
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

  // A load interns two or three strings per traced record (file, method,
  // IMEMO kind...): a direct-mapped cache of recent strings answers most,
  // an open-addressing table by a hash of the whole string the others.
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
  // A deque never moves its elements, so the views stay valid.
  std::deque<std::string> strings_;
  // Every owned string but the empty one; at most half full. The slot holds
  // the string's bytes' address, so a lookup misses the cache once for the
  // slot and once for the bytes (std::unordered_map, which this replaced,
  // chased a bucket, then a node, then the bytes: ~9% of a traced load).
  struct Slot {
    std::uint64_t hash = 0;
    const char* data = nullptr;
    std::uint32_t size = 0;
    std::uint32_t id = kEmpty;  // kEmpty: a free slot
  };
  std::vector<Slot> table_;
  struct CacheEntry {
    std::string_view text;
    std::uint32_t id = kEmpty;
  };
  std::array<CacheEntry, 256> recent_{};

  void grow_table();
};

}  // namespace heapleak
