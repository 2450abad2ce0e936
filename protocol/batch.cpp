#include "protocol/batch.h"

namespace heapleak::protocol {

BatchCollector::BatchCollector(std::weak_ptr<Outbox> outbox, Framing framing)
    : outbox_(std::move(outbox)), framing_(framing) {}

void BatchCollector::expect() {
  std::lock_guard lock(mutex_);
  ++pending_;
}

void BatchCollector::add(boost::json::object response) {
  std::lock_guard lock(mutex_);
  replies_.push_back(std::move(response));
  if (--pending_ == 0) flush_locked();
}

void BatchCollector::seal() {
  std::lock_guard lock(mutex_);
  if (--pending_ == 0) flush_locked();
}

void BatchCollector::flush_locked() {
  if (replies_.empty()) return;
  if (auto outbox = outbox_.lock()) outbox->send(boost::json::value(std::move(replies_)), framing_);
  replies_.clear();
}

}  // namespace heapleak::protocol
