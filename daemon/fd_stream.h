// A connected socket as a ByteStream: what SocketServer hands each client's
// Connection. The stream does not own the descriptor; the server closes it
// once the connection has flushed.
#pragma once

#include "daemon/byte_stream.h"

namespace heapleak::daemon {

class FdStream : public ByteStream {
 public:
  explicit FdStream(int fd) : fd_(fd) {}

  long read(char* buffer, std::size_t size) override;
  void shutdown() override;  // SHUT_RD
  void abort() override;     // SHUT_RDWR

 protected:
  long write_some(const char* data, std::size_t size) override;  // no SIGPIPE

 private:
  int fd_;
};

}  // namespace heapleak::daemon
