// Checks on the TCP token file beyond reading it: a token others can read is
// no secret, so a file readable or writable by group or others is reported
// (the daemon still starts: refusing would break setups that work today).
#pragma once

#include <string>

namespace heapleak::daemon {

// A warning naming the file and its mode, or "" when only its owner can
// read or write it (or it cannot be stat'ed: reading it reports that).
std::string token_file_warning(const std::string& path);

}  // namespace heapleak::daemon
