#include "protocol/outbox.h"

#include <boost/json/serialize.hpp>

#include "protocol/frame_writer.h"

namespace heapleak::protocol {

Outbox::Outbox(Sink sink, std::shared_ptr<Logger> logger)
    : sink_(std::move(sink)), logger_(std::move(logger)) {}

void Outbox::send(const boost::json::value& message, Framing framing) {
  const std::string payload = boost::json::serialize(message);
  std::string frame = write_frame(payload, framing);
  std::lock_guard lock(mutex_);
  if (closed_) return;
  if (logger_ && logger_->enabled(LogLevel::kVerbose)) logger_->verbose(">>> " + payload);
  if (sink_) sink_(std::move(frame));
}

void Outbox::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
}

bool Outbox::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

}  // namespace heapleak::protocol
