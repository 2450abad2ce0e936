// heapleak-client's help texts: the overview (with the exit-code table) and
// one page per command. Text only.
#pragma once

#include <string>

namespace heapleak::client {

std::string overview_usage();

// The help page of `command`, or "" when there is none.
std::string command_usage(const std::string& command);

}  // namespace heapleak::client
