// One analysis a Heap computes on first use and keeps (its root paths, its
// dominator tree), held without its type: the heap model sits below the
// analyses (core/graph/), so heap.h may name them only by forward
// declaration. The analysis's own file fills the slot (Heap::dominators() is
// defined in core/graph/dominators.cpp), and the slot remembers how to free
// and measure what it holds, so ~Heap needs no analysis header.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

namespace heapleak {

class AnalysisSlot {
 public:
  // The analysis, made by `make` (returning std::unique_ptr<const T>) by the
  // first caller; concurrent callers wait for it, later ones get it at once.
  template <typename T, typename Make>
  const T& get(Make&& make) {
    std::call_once(once_, [&] { store<T>(make()); });
    return *static_cast<const T*>(value_.get());
  }

  // One computed elsewhere (mapped from the cache): kept unless the slot
  // holds one already, in which case `value` is dropped.
  template <typename T>
  void seed(std::unique_ptr<const T> value) {
    std::call_once(once_, [&] { store<T>(std::move(value)); });
  }

  bool ready() const { return ready_.load(std::memory_order_acquire); }
  // What the kept analysis holds (its bytes_used()); 0 while empty.
  std::size_t bytes_used() const { return ready() ? bytes_(value_.get()) : 0; }

 private:
  template <typename T>
  void store(std::unique_ptr<const T> value) {
    bytes_ = [](const void* p) { return static_cast<const T*>(p)->bytes_used(); };
    // shared_ptr keeps T's deleter: freeing needs no T where the slot dies.
    value_ = std::shared_ptr<const void>(std::move(value));
    ready_.store(true, std::memory_order_release);
  }

  std::once_flag once_;
  std::shared_ptr<const void> value_;
  std::size_t (*bytes_)(const void*) = nullptr;
  std::atomic<bool> ready_{false};
};

}  // namespace heapleak
