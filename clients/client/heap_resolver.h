// Turns a HEAP argument into a heap id: a loaded heap's id or name, or a dump
// file's path (matched against listHeaps' absolute `path`, loaded with a
// progress bar when no loaded heap came from it). Talks only the protocol.
#pragma once

#include <boost/json/array.hpp>
#include <optional>
#include <string>

#include "clients/client/command_context.h"

namespace heapleak::client {

// The id for `arg`; loads a file path that is not loaded yet when may_load.
std::string resolve_heap(CommandContext& ctx, const std::string& arg, bool may_load = true);

// loadHeap with a progress bar on a TTY; returns the daemon's result.
boost::json::value load_with_progress(CommandContext& ctx, const std::string& absolute_path,
                                      const std::optional<std::string>& name);

// `path` made absolute against our working directory, lexically normal (the
// daemon's own form, so listHeaps' paths compare equal).
std::string absolute_path(const std::string& path);

}  // namespace heapleak::client
