// Outbox: the one way out of a session. Serializes a message, frames it and
// hands the whole frame to the owner's sink, one frame at a time even when
// replies come from worker threads. After close() the sink is never called
// again, so the owner may destroy its transport.
#pragma once

#include <boost/json/value.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "protocol/framing.h"
#include "protocol/logger.h"

namespace heapleak::protocol {

class Outbox {
 public:
  // Gets one complete frame per call, never concurrently. It must not block
  // for long (queue the bytes) and must not call back into the session.
  using Sink = std::function<void(std::string frame)>;

  Outbox(Sink sink, std::shared_ptr<Logger> logger);

  void send(const boost::json::value& message, Framing framing);
  void close();
  bool closed() const;

 private:
  Sink sink_;
  std::shared_ptr<Logger> logger_;
  mutable std::mutex mutex_;
  bool closed_ = false;
};

}  // namespace heapleak::protocol
