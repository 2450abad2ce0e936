// How a connection reads and writes bytes: a small interface with one
// implementation per transport (fd_stream.h for sockets, stdio_stream.h for
// stdin/stdout) and the one write loop they share.
#pragma once

#include <cstddef>

namespace heapleak::daemon {

class ByteStream {
 public:
  virtual ~ByteStream() = default;

  // Blocks until some bytes arrive: their count, 0 at the end, <0 on error.
  virtual long read(char* buffer, std::size_t size) = 0;
  // Writes everything, retrying short writes and EINTR; false: the peer is gone.
  bool write_all(const char* data, std::size_t size);
  // From another thread: ends a blocked read (writes may go on).
  virtual void shutdown() = 0;
  // From another thread: ends reads and writes (the peer is not reading).
  virtual void abort() = 0;

 protected:
  // One write: bytes written, or <0 with errno set (EINTR is retried).
  virtual long write_some(const char* data, std::size_t size) = 0;
};

}  // namespace heapleak::daemon
