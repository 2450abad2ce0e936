// run_in_halves: one loop over [0, count) done as two halves at once, the
// second on a thread of its own, or all of it on the calling thread; and
// run_both, two tasks at once. For the finish steps of a load that runs
// alone (core/heap/heap_builder.cpp, core/heap/address_sort.cpp), where the second
// core would otherwise sit idle while one thread sorts, permutes the
// columns and builds the edges.
#pragma once

#include <cstddef>
#include <exception>
#include <thread>

namespace heapleak {

// Below this many items, starting a thread (tens of microseconds) costs
// more than it saves.
inline constexpr std::size_t kWorthAThread = std::size_t{1} << 16;

// Calls first() here and second() on a thread of its own, at once. What
// second() throws is thrown here, after both ended.
template <class First, class Second>
void run_both(const First& first, const Second& second) {
  std::exception_ptr failure;
  std::thread other([&] {
    try {
      second();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  try {
    first();
  } catch (...) {
    other.join();
    throw;
  }
  other.join();
  if (failure) std::rethrow_exception(failure);
}

// Calls work(begin, end) on disjoint ranges that cover [0, count): twice,
// concurrently, when `two` and count is worth a thread; else once.
template <class Work>
void run_in_halves(bool two, std::size_t count, const Work& work) {
  if (!two || count < kWorthAThread) {
    work(std::size_t{0}, count);
    return;
  }
  const std::size_t middle = count / 2;
  run_both([&] { work(std::size_t{0}, middle); }, [&] { work(middle, count); });
}

}  // namespace heapleak
