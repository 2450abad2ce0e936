#include "daemon/stdio_stream.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace heapleak::daemon {

long StdioStream::read(char* buffer, std::size_t size) {
  for (;;) {
    if (stop_requested_ || stop_reading_) return 0;
    pollfd fd{0, POLLIN, 0};
    const int ready = ::poll(&fd, 1, 200);
    if (ready < 0 && errno != EINTR) return -1;
    if (ready <= 0) continue;
    const ssize_t n = ::read(0, buffer, size);
    if (n >= 0 || errno != EINTR) return static_cast<long>(n);
  }
}

long StdioStream::write_some(const char* data, std::size_t size) {
  return static_cast<long>(::write(1, data, size));
}

}  // namespace heapleak::daemon
