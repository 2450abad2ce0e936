// A diff's dumps other than B (A, C, a series' others) named by a path the
// daemon has no current heap of: read as streams against B, one byte per
// object of B and no heap (core/diagnosis/streamed_counterparts.h), as
// `heapleak` reads them, so a diff named by paths takes B's memory. What each
// said of B is kept for the next request on the same B and the same files.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/base/file_identity.h"
#include "core/diagnosis/other_dump.h"
#include "daemon/daemon_context.h"
#include "daemon/heap_store.h"
#include "protocol/binder.h"

namespace heapleak::daemon {

// Whether a diff streams `path` (absolute, lexically normal) against B at
// `target_path`: not B's own file, no heap of it in the store (one is used,
// or reloaded if stale), no cache image of it (mapped instead: cheaper).
bool streams_against_target(DaemonContext& ctx, const std::string& path,
                            const std::string& target_path);

// Each non-empty `paths[k]` read against `target` (two at a time, at a
// lower priority, stopped with the request) or taken from what was kept,
// as dump k of the diff; null where paths[k] is empty. A pass that needs
// such a dump's heap loads it into the store as a path-named heap is
// loaded, refused if the file changed since it was read. Throws
// protocol::RpcException: fileNotFound, notReadable, notAHeapDump,
// cancelled (the first failure in the paths' order).
std::vector<std::shared_ptr<const OtherDump>> stream_against(
    DaemonContext& ctx, const HeapEntry& target, const std::vector<std::string>& paths,
    const protocol::RequestContext& request);

// Dump `path`, read by stream_against when the file was `read`, loaded now
// in `mode` as a path-named heap is; -32803 invalidArgument when the file is
// no longer the one that was read.
std::shared_ptr<const Heap> load_streamed(DaemonContext& ctx, const std::string& path,
                                          const FileIdentity& read,
                                          const protocol::RequestContext& request, LoadMode mode);

}  // namespace heapleak::daemon
