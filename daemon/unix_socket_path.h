// Unix-socket path safety for heapleakd --listen unix: before binding, the
// socket's directory must be ours (or root's) and not writable by others,
// an existing file must be our own stale socket (removed) and never a live
// daemon's socket or someone else's file.
#pragma once

#include <string>

#include "protocol/logger.h"

namespace heapleak::daemon {

// Creates the directory 0700 when missing. False with `error` filled when
// the path must not be used.
bool prepare_unix_socket_path(const std::string& socket_path, protocol::Logger& logger,
                              std::string& error);

}  // namespace heapleak::daemon
