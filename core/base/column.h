// Column<T>: the array type of the heap's big columns. It either owns its
// storage (what HeapBuilder and the analyses grow and fill, with the
// vector-like operations they use) or views a read-only span of a cache
// image mapping (core/images/heap_image_reader.h), kept alive by a shared_ptr, so a
// reopened heap reads its columns straight from the page cache, uncopied.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/base/huge_pages.h"
#include "core/base/page_size.h"

namespace heapleak {

// Large allocations are mmap'ed, so that freeing one gives its pages back
// at once and a column can hand back the unused tail of its capacity.
// They are rounded to 2 MiB, the unit a huge page would take; whether they
// ask for huge pages is core/base/huge_pages.h's call.
struct MappedMemory {
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kThreshold = std::size_t{4} << 20;  // smaller: operator new

  // Fresh zeroed pages for `bytes` (a multiple of kHugePage).
  static void* map(std::size_t bytes) {
    void* memory =
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw std::bad_alloc();
    if (huge_pages_for(bytes)) ::madvise(memory, bytes, MADV_HUGEPAGE);
    return memory;
  }
  static void* allocate(std::size_t bytes) {
    if (bytes < kThreshold) return ::operator new(bytes);
    return map(round_up(bytes));
  }
  static void deallocate(void* pointer, std::size_t bytes) noexcept {
    if (pointer == nullptr) return;
    if (bytes < kThreshold) {
      ::operator delete(pointer);
    } else {
      ::munmap(pointer, round_up(bytes));
    }
  }
  static std::size_t round_up(std::size_t bytes) {
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
  }
};

template <class T>
class Column {
  static_assert(std::is_trivially_copyable_v<T>, "columns hold plain values, copied with memcpy");

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reference = T&;
  using const_reference = const T&;

  Column() noexcept = default;
  explicit Column(std::size_t n) { assign(n, T{}); }
  Column(std::size_t n, const T& value) { assign(n, value); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  Column(It first, It last) {
    assign(first, last);
  }
  Column(const Column& other) { assign(other.begin(), other.end()); }
  Column(Column&& other) noexcept { swap(other); }
  Column& operator=(const Column& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  Column& operator=(Column&& other) noexcept {
    Column(std::move(other)).swap(*this);
    return *this;
  }
  ~Column() { release(); }

  // A read-only view of `n` values at `data`, inside memory `keep` keeps
  // mapped. Mutating a view is a programming error (the pages are read-only).
  static Column view(const T* data, std::size_t n, std::shared_ptr<const void> keep) {
    Column column;
    column.data_ = const_cast<T*>(data);
    column.size_ = n;
    column.keep_ = std::move(keep);
    return column;
  }
  bool is_view() const { return keep_ != nullptr; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return is_view() ? size_ : capacity_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T* cbegin() const { return data_; }
  const T* cend() const { return data_ + size_; }

  void reserve(std::size_t n) {
    if (n > capacity_ || is_view()) reallocate(std::max(n, size_));
  }
  // The loader calls it ~15 times per object: one compare (a view's capacity
  // is 0, so it grows into owned memory too), the rare growth out of line.
  void push_back(const T& value) {
    if (size_ >= capacity_) grow(size_ + 1);
    data_[size_++] = value;
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    push_back(T(std::forward<Args>(args)...));
    return back();
  }
  void pop_back() { --size_; }
  void resize(std::size_t n) { resize(n, T{}); }
  void resize(std::size_t n, const T& value) {
    if (n > size_) {
      if (n > capacity_ || is_view()) grow(n);
      std::fill(data_ + size_, data_ + n, value);
    } else if (is_view()) {
      reallocate(n);
    }
    size_ = n;
  }
  // Sets the size to `n` without writing the values: for an array the
  // caller fills whole before reading it (fresh mapped pages, or pages a
  // prefaulter made present, are not touched twice).
  void resize_for_overwrite(std::size_t n) {
    if (n > capacity_ || is_view()) grow(n);
    size_ = n;
  }
  void assign(std::size_t n, const T& value) {
    clear();
    resize(n, value);
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  void assign(It first, It last) {
    clear();
    insert(end(), first, last);
  }
  // Inserts [first, last) before `position` (HeapBuilder appends at end()).
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  T* insert(T* position, It first, It last) {
    const auto at = static_cast<std::size_t>(position - data_);
    const auto count = static_cast<std::size_t>(std::distance(first, last));
    if (count == 0) return data_ + at;  // data_ may be null: no memmove(nullptr, ...)
    if (size_ + count > capacity_ || is_view()) grow(size_ + count);
    std::memmove(data_ + at + count, data_ + at, (size_ - at) * sizeof(T));
    std::copy(first, last, data_ + at);
    size_ += count;
    return data_ + at;
  }
  T* erase(T* first, T* last) {
    assert(!is_view());
    if (first == last) return first;
    std::memmove(first, last, static_cast<std::size_t>(end() - last) * sizeof(T));
    size_ -= static_cast<std::size_t>(last - first);
    return first;
  }
  // Drops the values, keeps an owned buffer; a view becomes empty.
  void clear() {
    if (is_view()) release();
    size_ = 0;
  }
  // Makes this column empty, with `other`'s owned buffer as its storage
  // (room for as many T as the buffer holds bytes); `other` ends empty. For
  // a load whose transient arrays die just as others are born: their pages
  // are already faulted in, and fresh pages are a load's dominant cost.
  template <class U>
  void adopt_storage(Column<U>& other) {
    static_assert(sizeof(U) % sizeof(T) == 0, "the buffer's byte size must stay the same");
    assert(!is_view() && !other.is_view());
    release();
    data_ = reinterpret_cast<T*>(other.data_);
    capacity_ = other.capacity_ * (sizeof(U) / sizeof(T));
    other.data_ = nullptr;
    other.size_ = 0;
    other.capacity_ = 0;
  }
  // Trades buffers with `other`: this column takes other's buffer, holding
  // the `n` values the caller wrote at its start, and `other` takes this
  // column's, empty, if it holds at least `other_keeps` of other's values.
  // For a permutation gathered into a spare: no copy back. Only between
  // mapped buffers, whose bytes (a multiple of 2 MiB) hold whole values of
  // any column type; false, nothing changed, otherwise.
  template <class U>
  bool trade_storage(Column<U>& other, std::size_t n, std::size_t other_keeps) {
    if (is_view() || other.is_view() || capacity_ * sizeof(T) < MappedMemory::kThreshold ||
        other.capacity_ * sizeof(U) < MappedMemory::kThreshold)
      return false;
    const std::size_t mine = MappedMemory::round_up(capacity_ * sizeof(T));
    const std::size_t theirs = MappedMemory::round_up(other.capacity_ * sizeof(U));
    if (n > theirs / sizeof(T) || mine / sizeof(U) < other_keeps) return false;
    T* const old = data_;
    data_ = reinterpret_cast<T*>(other.data_);
    size_ = n;
    capacity_ = theirs / sizeof(T);
    other.data_ = reinterpret_cast<U*>(old);
    other.size_ = 0;
    other.capacity_ = mine / sizeof(U);
    return true;
  }
  // Gives the pages past size() back to the kernel, keeping the capacity
  // (they read as zeros if used again): resident memory without a copy.
  void release_unused_pages() {
    if (is_view() || capacity_ * sizeof(T) < MappedMemory::kThreshold) return;
    const std::uintptr_t page = page_size();
    const auto used_end = reinterpret_cast<std::uintptr_t>(data_ + size_);
    const std::uintptr_t from = (used_end + page - 1) & ~(page - 1);
    const auto to =
        reinterpret_cast<std::uintptr_t>(data_) + MappedMemory::round_up(capacity_ * sizeof(T));
    if (from < to) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
  }
  // Appends `from`'s values by moving its pages to just past this column's
  // (mremap), not by copying them: no copy, and no first touch of the pages
  // they land in (for a split load's halves, ~0.1 s of 0.15 s per GB). Only
  // when both own mapped storage, this column's values end on a page
  // boundary and its capacity holds both; otherwise it changes nothing and
  // returns false. On success `from` ends empty, its storage given back.
  bool append_pages(Column& from) {
    const std::uintptr_t page = page_size();
    const std::size_t used = size_ * sizeof(T);
    if (is_view() || from.is_view() || from.size_ == 0 || size_ + from.size_ > capacity_ ||
        capacity_ * sizeof(T) < MappedMemory::kThreshold ||
        from.capacity_ * sizeof(T) < MappedMemory::kThreshold || used % page != 0)
      return false;
    const std::size_t moved = (from.size_ * sizeof(T) + page - 1) / page * page;
    void* const target = reinterpret_cast<char*>(data_) + used;
    // MREMAP_FIXED puts the pages at `target`, dropping the (unused) pages
    // there. A failed move may have dropped them already: fresh ones take
    // their place, so that the copy the caller falls back to has its room.
    if (::mremap(from.data_, moved, moved, MREMAP_MAYMOVE | MREMAP_FIXED, target) != target) {
      if (::mmap(target, moved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0) != target)
        throw std::bad_alloc();
      return false;
    }
    const std::size_t mapped = MappedMemory::round_up(from.capacity_ * sizeof(T));
    if (mapped > moved) ::munmap(reinterpret_cast<char*>(from.data_) + moved, mapped - moved);
    size_ += from.size_;
    from.data_ = nullptr;
    from.size_ = 0;
    from.capacity_ = 0;
    return true;
  }
  void shrink_to_fit() {
    if (!is_view() && capacity_ > size_) reallocate(size_);
  }
  void swap(Column& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    std::swap(keep_, other.keep_);
  }

  friend bool operator==(const Column& a, const Column& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  template <class U>
  friend class Column;

  [[gnu::noinline]] void grow(std::size_t needed) { reallocate(std::max(needed, capacity_ * 2)); }
  // Moves the values (at most `n`) into a fresh owned buffer of `n`.
  void reallocate(std::size_t n) {
    T* fresh = n == 0 ? nullptr : static_cast<T*>(MappedMemory::allocate(n * sizeof(T)));
    const std::size_t kept = std::min(size_, n);
    if (kept > 0) std::memcpy(fresh, data_, kept * sizeof(T));
    release();
    data_ = fresh;
    size_ = kept;
    capacity_ = n;
  }
  void release() noexcept {
    if (is_view()) {
      keep_.reset();
    } else {
      MappedMemory::deallocate(data_, capacity_ * sizeof(T));
    }
    data_ = nullptr;
    size_ = 0;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;          // owned values only; 0 for a view
  std::shared_ptr<const void> keep_;  // set for a view: the mapping it reads
};

}  // namespace heapleak
