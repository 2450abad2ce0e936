#include "engine/image_writer.h"

#include <utility>

namespace heapleak::engine {

ImageWriter::~ImageWriter() { finish(); }

void ImageWriter::add(PendingImage image, OnWarning on_warning) {
  if (at_once_) {
    auto warning = image.write();
    if (!warning) return;
    if (on_warning) {
      on_warning(*warning);
    } else {
      std::lock_guard lock(mutex_);
      warnings_.push_back(std::move(*warning));
    }
    return;
  }
  std::lock_guard lock(mutex_);
  queue_.push_back({std::move(image), std::move(on_warning)});
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  changed_.notify_one();
}

std::vector<std::string> ImageWriter::finish() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  changed_.notify_one();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  done_ = false;
  return std::exchange(warnings_, {});
}

void ImageWriter::run() {
  for (;;) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return done_ || !queue_.empty(); });
    if (queue_.empty()) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    auto warning = job.image.write();
    if (warning && job.on_warning) {
      job.on_warning(*warning);
      continue;
    }
    lock.lock();
    if (warning) warnings_.push_back(std::move(*warning));
  }
}

}  // namespace heapleak::engine
