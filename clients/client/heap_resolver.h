// Turns a HEAP argument into a heap id: a loaded heap's id or name, or a dump
// file's path (matched against listHeaps' absolute `path`, loaded with a
// progress bar when no loaded heap came from it), and the A B [C] params of
// the diff requests built on it. Talks only the protocol.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstddef>
#include <optional>
#include <string>

#include "clients/client/command_context.h"

namespace heapleak::client {

// The id for `arg`; loads a file path that is not loaded yet when may_load.
std::string resolve_heap(CommandContext& ctx, const std::string& arg, bool may_load = true);

// The params stats and explain share, from `A B [C] [--by KEY] [--limit N]`:
// baseline, target and later resolved (loaded first when new), groupBy, and
// limit (`table_limit` when --limit is absent and the output is a table).
boost::json::object leak_diff_params(CommandContext& ctx, std::size_t table_limit);

// loadHeap with a progress bar on a TTY; returns the daemon's result.
boost::json::value load_with_progress(CommandContext& ctx, const std::string& absolute_path,
                                      const std::optional<std::string>& name);

// `path` made absolute against our working directory, lexically normal (the
// daemon's own form, so listHeaps' paths compare equal).
std::string absolute_path(const std::string& path);

}  // namespace heapleak::client
