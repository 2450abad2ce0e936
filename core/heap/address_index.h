// Address -> object index over a load's sorted address column, for turning
// its millions of raw references into indices (HeapBuilder::finish). Two
// layouts, both in memory the caller lends (the permutation's scratch,
// already faulted in): a bitmap per 64 KiB window of the address space when
// the addresses allow it (Ruby's heap pages), else an open-addressing table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "core/base/address.h"
#include "core/base/column.h"
#include "core/heap/heap.h"

namespace heapleak {

// Replaces each address in `refs` by the index of the object at that
// address in `sorted` (ascending, distinct), or kNoObject when none is.
// `room`: what the index may use, at least two slots per object. `two`:
// each half of `refs` on a thread of its own (the index is built first).
void resolve_addresses(const Column<Address>& sorted, Column<Address>& refs,
                       std::span<std::uint32_t> room, bool two);

// Ruby puts objects in 64 KiB heap pages, 8-byte aligned, many to a page.
// Per window of 64 KiB, one bit per 8 bytes, and per 64 bits the index of
// the first object they mark: a lookup finds its window in a small table,
// then tests a bit and counts the ones before it. The index is a few MiB
// for millions of objects, mostly in the cache, where a hash table needs
// two cache misses (its slot, then the address the slot names).
class WindowIndex {
 public:
  // How many windows `sorted` spans, when it can be indexed so within
  // `room` (every address 8-byte aligned, few enough windows); else none.
  static std::optional<std::size_t> fitting_windows(const Column<Address>& sorted,
                                                    std::span<std::uint32_t> room);
  // `windows`: what fitting_windows(sorted, room) answered (one pass over
  // millions of addresses, not made twice).
  WindowIndex(const Column<Address>& sorted, std::span<std::uint32_t> room, std::size_t windows);

  ObjectIndex find(Address address) const {
    if ((address & 7) != 0) return kNoObject;
    const Word* words = window_words(address >> kWindowBits);
    if (words == nullptr) return kNoObject;
    const std::uint64_t granule = (address >> 3) & (kGranules - 1);
    const Word& word = words[granule / 64];
    const std::uint64_t bit = std::uint64_t{1} << (granule % 64);
    if ((word.bits & bit) == 0) return kNoObject;
    return word.first + static_cast<ObjectIndex>(__builtin_popcountll(word.bits & (bit - 1)));
  }
  // The word a lookup of `address` will read (the window table is small
  // enough to stay in the cache; the words are not).
  void prefetch(Address address) const {
    if (const Word* words = window_words(address >> kWindowBits))
      __builtin_prefetch(&words[((address >> 3) & (kGranules - 1)) / 64]);
  }

 private:
  static constexpr unsigned kWindowBits = 16;
  static constexpr std::size_t kGranules = (std::size_t{1} << kWindowBits) / 8;
  struct Word {
    std::uint64_t bits;    // one per 8 bytes of the window: an object starts there
    ObjectIndex first;     // index of the object of the lowest bit set
    std::uint32_t unused;  // 16 bytes: a word never straddles two cache lines
  };
  static constexpr std::size_t kWords = kGranules / 64;
  struct Slot {
    std::uint64_t window_plus_one;  // 0: empty
    std::uint64_t words_at;         // the window's first Word, in words_
  };
  // How many distinct windows `sorted` spans, or SIZE_MAX when an address
  // is not 8-byte aligned.
  static std::size_t count_windows(const Column<Address>& sorted);
  static std::size_t table_size(std::size_t windows);
  static std::size_t bytes_needed(std::size_t windows);
  std::size_t home(std::uint64_t window) const {
    return static_cast<std::size_t>((window * 0x9E3779B97F4A7C15ull) >> 32) & mask_;
  }
  const Word* window_words(std::uint64_t window) const {
    for (std::size_t slot = home(window);; slot = (slot + 1) & mask_) {
      if (table_[slot].window_plus_one == window + 1) return words_ + table_[slot].words_at;
      if (table_[slot].window_plus_one == 0) return nullptr;
    }
  }

  Slot* table_ = nullptr;
  std::size_t mask_ = 0;
  Word* words_ = nullptr;
};

// Any addresses: open addressing over indices into the sorted column, at
// least two slots per object so the table stays at most half full. One
// probe is usually one cache miss for the slot and one for the address it
// names, where a binary search over millions of addresses costs a dozen.
class HashIndex {
 public:
  // `two`: filled by two threads at once, each claiming its slots with a
  // compare-and-swap. The addresses are distinct, so each one's slot may
  // differ from a one-thread fill, but what find() answers does not.
  HashIndex(const Column<Address>& sorted, std::span<std::uint32_t> room, bool two);

  ObjectIndex find(Address address) const {
    for (std::size_t slot = home(address);; slot = next(slot)) {
      const ObjectIndex i = slots_[slot];
      if (i == kNoObject || addresses_[i] == address) return i;
    }
  }
  // A lookup misses the cache twice (the slot, then the address it names):
  // callers that know what comes next ask for both lines early.
  void prefetch_slot(Address address) const { __builtin_prefetch(&slots_[home(address)]); }
  void prefetch_address(Address address) const {
    const ObjectIndex i = slots_[home(address)];
    if (i != kNoObject) __builtin_prefetch(&addresses_[i]);
  }

 private:
  // The capacity is not a power of two: map the hash onto it by a multiply.
  std::size_t home(Address address) const {
    const std::uint64_t hash = address * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>((static_cast<unsigned __int128>(hash) * capacity_) >> 64);
  }
  std::size_t next(std::size_t slot) const { return slot + 1 == capacity_ ? 0 : slot + 1; }

  const Column<Address>& addresses_;
  std::uint32_t* slots_;
  std::size_t capacity_;
};

}  // namespace heapleak
