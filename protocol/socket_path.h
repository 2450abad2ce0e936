// Where heapleakd listens when no path is given: the one rendezvous of the
// daemon (--listen unix) and heapleak-client (auto-start, stop). Both link
// this single definition, so the two can never disagree.
#pragma once

#include <string>

namespace heapleak::protocol {

// $XDG_RUNTIME_DIR/heapleak/heapleakd.sock, else /tmp/heapleak-UID/heapleakd.sock.
std::string default_socket_path();

}  // namespace heapleak::protocol
