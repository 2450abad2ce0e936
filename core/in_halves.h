// run_in_halves: one loop over [0, count) done as two halves at once, the
// second on a thread of its own, or all of it on the calling thread. For
// the finish steps of a load that runs alone (core/heap_builder.cpp), where
// the second core would otherwise sit idle while one thread permutes the
// columns and builds the edges.
#pragma once

#include <cstddef>
#include <exception>
#include <thread>

namespace heapleak {

// Calls work(begin, end) on disjoint ranges that cover [0, count): twice,
// concurrently, when `two` and count is worth a thread; else once. What the
// second half throws is thrown here, after both halves ended.
template <class Work>
void run_in_halves(bool two, std::size_t count, const Work& work) {
  // Below this, starting a thread (tens of microseconds) costs more than it saves.
  constexpr std::size_t kWorthAThread = std::size_t{1} << 16;
  if (!two || count < kWorthAThread) {
    work(std::size_t{0}, count);
    return;
  }
  const std::size_t middle = count / 2;
  std::exception_ptr failure;
  std::thread second([&] {
    try {
      work(middle, count);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  try {
    work(std::size_t{0}, middle);
  } catch (...) {
    second.join();
    throw;
  }
  second.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace heapleak
