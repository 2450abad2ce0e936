// Turns a HEAP argument into what a request names a heap by: a loaded heap's
// id or name, or a dump file's absolute path (loaded with a progress bar when
// no loaded heap came from it; the daemon reloads it when the file changed),
// and the A B [C] params of the diff requests built on it. Talks only the
// protocol.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "clients/client/command_context.h"

namespace heapleak::client {

// What to name `arg`'s heap by in a request: a loaded heap's id (for an id or
// a name), or the absolute path of a dump file (an argument that exists as a
// file or looks like a path: '/', .json, .gz...), loaded first when no heap
// came from it yet and may_load; a path that is no file is fileNotFound (3).
std::string resolve_heap(CommandContext& ctx, const std::string& arg, bool may_load = true);

// The params stats and explain share, from `A B [C] [--by KEY] [--limit N]`:
// baseline, target and later (four positionals or more: explain's `heaps`),
// a dump file by its absolute path (the daemon loads it in the request),
// anything else resolved; groupBy, and limit (`table_limit` when --limit is
// absent and the output is a table; without one, the method's default).
boost::json::object leak_diff_params(CommandContext& ctx, std::optional<std::size_t> table_limit);

// `method` with a workDoneToken, its progress as a bar on a TTY; returns
// the daemon's result.
boost::json::value call_with_progress(CommandContext& ctx, const std::string& method,
                                      boost::json::object params);

// loadHeap with a progress bar on a TTY; returns the daemon's result.
boost::json::value load_with_progress(CommandContext& ctx, const std::string& absolute_path,
                                      const std::optional<std::string>& name);

// `path` made absolute against our working directory, lexically normal (the
// daemon's own form, so listHeaps' paths compare equal).
std::string absolute_path(const std::string& path);

}  // namespace heapleak::client
