// The one writer of cache images (core/images/cached_load.h's PendingImage) for
// every front end: one image at a time, on a thread of its own, from the
// moment each load ends, so that writing a large image (hundreds of MB into
// fresh page cache) overlaps the next load and the analyses instead of
// adding its seconds after the answer. The CLI waits for it before exiting;
// heapleakd logs each failed write as it happens.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/images/cached_load.h"

namespace heapleak::engine {

class ImageWriter {
 public:
  using OnWarning = std::function<void(const std::string&)>;

  // `at_once`: each image is written by add() itself, on the caller's
  // thread (heapleakd --sync: the next request sees it).
  explicit ImageWriter(bool at_once = false) : at_once_(at_once) {}
  // Finishes (never abandons) the writes queued.
  ~ImageWriter();
  ImageWriter(const ImageWriter&) = delete;
  ImageWriter& operator=(const ImageWriter&) = delete;

  // Queues `image`; a failed write is said to `on_warning`, or kept for
  // finish() without one.
  void add(PendingImage image, OnWarning on_warning = {});
  // Waits for the queue to drain; returns the warnings kept.
  std::vector<std::string> finish();

 private:
  struct Job {
    PendingImage image;
    OnWarning on_warning;
  };
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  std::vector<std::string> warnings_;
  bool done_ = false;
  const bool at_once_;
  std::thread thread_;
};

}  // namespace heapleak::engine
