#include "daemon/byte_stream.h"

#include <cerrno>

namespace heapleak::daemon {

bool ByteStream::write_all(const char* data, std::size_t size) {
  while (size > 0) {
    const long n = write_some(data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace heapleak::daemon
