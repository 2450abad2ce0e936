// stdin/stdout as a ByteStream for heapleakd --stdio. Reads poll, so a stop
// request (stopDaemon, a signal: `stop_requested`) or the connection's own
// shutdown ends the read loop within a fifth of a second even when the
// client is silent.
#pragma once

#include <atomic>

#include "daemon/byte_stream.h"

namespace heapleak::daemon {

class StdioStream : public ByteStream {
 public:
  explicit StdioStream(const std::atomic<bool>& stop_requested) : stop_requested_(stop_requested) {}

  long read(char* buffer, std::size_t size) override;
  // Both only stop reading: stdout stays open for the replies still queued.
  void shutdown() override { stop_reading_ = true; }
  void abort() override { stop_reading_ = true; }

 protected:
  long write_some(const char* data, std::size_t size) override;

 private:
  const std::atomic<bool>& stop_requested_;
  std::atomic<bool> stop_reading_{false};
};

}  // namespace heapleak::daemon
