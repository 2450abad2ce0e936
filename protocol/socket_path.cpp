#include "protocol/socket_path.h"

#include <unistd.h>

#include <cstdlib>

namespace heapleak::protocol {

std::string default_socket_path() {
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime) {
    return std::string(runtime) + "/heapleak/heapleakd.sock";
  }
  return "/tmp/heapleak-" + std::to_string(::getuid()) + "/heapleakd.sock";
}

}  // namespace heapleak::protocol
