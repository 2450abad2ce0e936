// Column<T>: the vector type of the heap's big arrays. Large allocations are
// mmap'ed and marked MADV_HUGEPAGE, because on first touch every 4 KiB page
// costs a fault (expensive under virtualisation) and a multi-gigabyte heap
// touches hundreds of thousands of them; 2 MiB pages cut that by 512.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <vector>

namespace heapleak {

template <class T>
class HugePageAllocator {
 public:
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kThreshold = std::size_t{4}
                                            << 20;  // smaller arrays use operator new

  HugePageAllocator() noexcept = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kThreshold) return static_cast<T*>(::operator new(bytes));
    void* memory = ::mmap(nullptr, round_up(bytes), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw std::bad_alloc();
    ::madvise(memory, round_up(bytes), MADV_HUGEPAGE);
    return static_cast<T*>(memory);
  }

  void deallocate(T* pointer, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kThreshold) {
      ::operator delete(pointer);
    } else {
      ::munmap(pointer, round_up(bytes));
    }
  }

  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }

 private:
  static std::size_t round_up(std::size_t bytes) {
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
  }
};

template <class T>
using Column = std::vector<T, HugePageAllocator<T>>;

}  // namespace heapleak
