#include "core/heap/address_index.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "core/base/in_halves.h"

namespace heapleak {
namespace {

// Slots and words hold 8-byte values: the room is used from its first
// 16-byte boundary.
constexpr std::size_t kAlign = 16;

std::byte* aligned_start(std::span<std::uint32_t> room) {
  const auto at = reinterpret_cast<std::uintptr_t>(room.data());
  return reinterpret_cast<std::byte*>((at + kAlign - 1) / kAlign * kAlign);
}

}  // namespace

std::size_t WindowIndex::count_windows(const Column<Address>& sorted) {
  std::size_t windows = 0;
  std::uint64_t current = std::numeric_limits<std::uint64_t>::max();
  Address low_bits = 0;
  for (const Address address : sorted) {
    low_bits |= address;
    if ((address >> kWindowBits) != current) {
      current = address >> kWindowBits;
      ++windows;
    }
  }
  return (low_bits & 7) == 0 ? windows : std::numeric_limits<std::size_t>::max();
}

std::size_t WindowIndex::table_size(std::size_t windows) {
  std::size_t size = 16;
  while (size < 2 * windows) size *= 2;  // at most half full
  return size;
}

std::size_t WindowIndex::bytes_needed(std::size_t windows) {
  return table_size(windows) * sizeof(Slot) + windows * kWords * sizeof(Word) + kAlign;
}

std::optional<std::size_t> WindowIndex::fitting_windows(const Column<Address>& sorted,
                                                        std::span<std::uint32_t> room) {
  const std::size_t windows = count_windows(sorted);
  if (windows == std::numeric_limits<std::size_t>::max() ||
      windows > room.size_bytes() / (kWords * sizeof(Word)) ||
      bytes_needed(windows) > room.size_bytes())
    return std::nullopt;
  return windows;
}

WindowIndex::WindowIndex(const Column<Address>& sorted, std::span<std::uint32_t> room,
                         std::size_t windows) {
  const std::size_t table = table_size(windows);
  table_ = reinterpret_cast<Slot*>(aligned_start(room));
  mask_ = table - 1;
  words_ = reinterpret_cast<Word*>(table_ + table);
  std::fill(table_, table_ + table, Slot{0, 0});
  // One pass in address order: a window's objects are consecutive, and in
  // each word the first object seen is the one of its lowest bit.
  std::uint64_t current = std::numeric_limits<std::uint64_t>::max();
  std::size_t filled = 0;  // windows so far
  Word* words = nullptr;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const Address address = sorted[i];
    if ((address >> kWindowBits) != current) {
      current = address >> kWindowBits;
      words = words_ + filled * kWords;
      std::fill(words, words + kWords, Word{0, 0, 0});
      std::size_t slot = home(current);
      while (table_[slot].window_plus_one != 0) slot = (slot + 1) & mask_;
      table_[slot] = Slot{current + 1, filled * kWords};
      ++filled;
    }
    const std::uint64_t granule = (address >> 3) & (kGranules - 1);
    Word& word = words[granule / 64];
    if (word.bits == 0) word.first = static_cast<ObjectIndex>(i);
    word.bits |= std::uint64_t{1} << (granule % 64);
  }
}

HashIndex::HashIndex(const Column<Address>& sorted, std::span<std::uint32_t> room, bool two)
    : addresses_(sorted), slots_(room.data()), capacity_(room.size()) {
  run_in_halves(two, capacity_, [&](std::size_t begin, std::size_t end) {
    std::fill(slots_ + begin, slots_ + end, kNoObject);
  });
  if (!two) {
    for (ObjectIndex i = 0; i < sorted.size(); ++i) {
      std::size_t slot = home(sorted[i]);
      while (slots_[slot] != kNoObject) slot = next(slot);
      slots_[slot] = i;
    }
    return;
  }
  run_in_halves(two, sorted.size(), [&](std::size_t begin, std::size_t end) {
    for (auto i = static_cast<ObjectIndex>(begin); i < end; ++i) {
      for (std::size_t slot = home(sorted[i]);; slot = next(slot)) {
        std::atomic_ref<std::uint32_t> claimed(slots_[slot]);
        std::uint32_t empty = kNoObject;
        if (claimed.load(std::memory_order_relaxed) == kNoObject &&
            claimed.compare_exchange_strong(empty, i, std::memory_order_relaxed))
          break;
      }
    }
  });
}

void resolve_addresses(const Column<Address>& sorted, Column<Address>& refs,
                       std::span<std::uint32_t> room, bool two) {
  if (const auto windows = WindowIndex::fitting_windows(sorted, room)) {
    const WindowIndex index(sorted, room, *windows);
    // The word a lookup reads is fetched this many references ahead.
    constexpr std::size_t kAhead = 8;
    run_in_halves(two, refs.size(), [&](std::size_t begin, std::size_t end) {
      for (std::size_t r = begin; r < end; ++r) {
        if (r + kAhead < end) index.prefetch(refs[r + kAhead]);
        refs[r] = index.find(refs[r]);
      }
    });
    return;
  }
  const HashIndex index(sorted, room, two);
  // The slot of the reference kSlotAhead on is fetched, then the address
  // named by the one kAddressAhead on, whose slot has arrived by then.
  constexpr std::size_t kSlotAhead = 16;
  constexpr std::size_t kAddressAhead = 8;
  run_in_halves(two, refs.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      if (r + kSlotAhead < end) index.prefetch_slot(refs[r + kSlotAhead]);
      if (r + kAddressAhead < end) index.prefetch_address(refs[r + kAddressAhead]);
      refs[r] = index.find(refs[r]);
    }
  });
}

}  // namespace heapleak
