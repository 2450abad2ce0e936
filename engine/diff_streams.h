// A diff's dumps other than B read as streams against B
// (core/diagnosis/streamed_counterparts.h): two at a time, at a lower
// priority, on threads of their own while the front end goes on (the CLI
// computes B's root paths meanwhile), each dump's site trust read from its
// capture manifest. The CLI and heapleakd both read A and C this way.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/base/error.h"
#include "core/diagnosis/counterparts.h"
#include "core/heap/heap.h"

namespace heapleak::engine {

class DiffStreams {
 public:
  // Streams read at once: each is a read of its file and a look at B's
  // object at every address; more would only share the same two cores.
  // The rest wait their turn.
  static constexpr std::size_t kAtOnce = 2;

  // Called from a stream's thread after each block of paths[k]: its bytes
  // read so far, of its size.
  using Progress = std::function<void(std::size_t k, std::uint64_t done, std::uint64_t total)>;

  // Starts reading every non-empty `paths[k]` against `target`, which must
  // outlive this.
  DiffStreams(const Heap& target, std::vector<std::string> paths, Progress progress = {});
  ~DiffStreams();  // stops and waits for the streams not joined
  DiffStreams(const DiffStreams&) = delete;
  DiffStreams& operator=(const DiffStreams&) = delete;

  // The streams end early, cancelled (a request cancelled).
  void stop() { stop_.store(true); }
  // Waits for the streams: by dump, what it said of B, or why it could not
  // be read ("not read" where paths[k] was empty). Rethrows what a stream
  // threw, the first in the paths' order.
  std::vector<Result<Counterparts>> join();

 private:
  void work();

  const Heap& target_;
  std::vector<std::string> paths_;
  Progress progress_;
  std::vector<std::size_t> reads_;
  std::vector<Result<Counterparts>> results_;
  std::vector<std::exception_ptr> failures_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace heapleak::engine
