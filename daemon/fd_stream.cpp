#include "daemon/fd_stream.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace heapleak::daemon {

long FdStream::read(char* buffer, std::size_t size) {
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, size);
    if (n >= 0 || errno != EINTR) return static_cast<long>(n);
  }
}

long FdStream::write_some(const char* data, std::size_t size) {
  return static_cast<long>(::send(fd_, data, size, MSG_NOSIGNAL));
}

void FdStream::shutdown() { ::shutdown(fd_, SHUT_RD); }

void FdStream::abort() { ::shutdown(fd_, SHUT_RDWR); }

}  // namespace heapleak::daemon
