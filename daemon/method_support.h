// Small helpers shared by the method families: core errors to wire errors,
// heap and address lookups that answer -32803 with a reason (or say the heap
// is still loading), and diff options from the wire params.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/diagnosis/leak_diff.h"
#include "core/diagnosis/other_dump.h"
#include "core/heap/heap.h"
#include "core/series/dump_series.h"
#include "daemon/daemon_context.h"
#include "daemon/heap_store.h"
#include "daemon/rpc_errors.h"
#include "daemon/wire_params.h"
#include "engine/diff_set.h"
#include "engine/later_references.h"
#include "protocol/binder.h"
#include "protocol/error.h"

namespace heapleak::daemon {

// Thrown by require_heap for a name whose load is still running. Methods
// registered through daemon/query_task.h run again when that load ends;
// elsewhere it is an ordinary -32803 unknownHeap saying the heap is loading.
class HeapStillLoading : public protocol::RpcException {
 public:
  explicit HeapStillLoading(std::string name);
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// Throw protocol::RpcException: -32803 unknownHeap / unknownAddress, -32602
// for an address that is not hex; HeapStillLoading as above.
// A heap param that is a dump's absolute path names the heap loaded from that
// file; require_heap with a DaemonContext checks the file first and loads it
// when it is new or changed (daemon/path_heaps.h), the HeapStore one does not.
HeapEntry require_heap(const HeapStore& store, const std::string& id_or_name);
HeapEntry require_heap(DaemonContext& ctx, const std::string& heap,
                       const protocol::RequestContext& request);
ObjectIndex require_object(const Heap& heap, const std::string& address);
// stats and explain: params.groupBy (-32602 unless class, site or generation)
// and params.samples as diff options.
LeakDiffOptions require_diff_options(const StatsParams& params);
// stats and explain: the baseline, target and (optional) later heaps they
// name; explain's `heaps` D1..DN are all in `series` too, read as baseline
// D1, target D(N-1), later DN.
// A dump streamed against B (daemon/streamed_dumps.h) has an entry without
// a heap, its path for id and name for the file's name: the answer names it
// by its path, which a later request can name to load it.
struct DiffHeaps {
  HeapEntry baseline;
  HeapEntry target;
  std::optional<HeapEntry> later;
  std::vector<HeapEntry> series;
  // By dump (D1..DN of a series, else A B [C]): what a streamed one said of
  // B, null for a held one.
  std::vector<std::shared_ptr<const OtherDump>> streamed;
};
// Dumps named by path load as engine/load_plan.h's plan_leak_loads says:
// B with references, first, then `after_target` on it (its analyses); the
// others named by a path the store has no current heap of (nor the cache an
// image) are then streamed against B instead of loaded; any other path
// loads identity-only beside B, in one progress.
DiffHeaps require_diff_heaps(DaemonContext& ctx, const StatsParams& params,
                             const protocol::RequestContext& request,
                             const std::function<void(const HeapEntry&)>& after_target = {});
// explain's and report's diff: require_diff_heaps with B's dominator tree
// and root paths computed as soon as it is loaded (engine/load_plan.h),
// while A and C still load; -32803 invalidArgument should B have no
// references (a diff always loads it with them).
DiffHeaps require_analysed_diff_heaps(DaemonContext& ctx, const StatsParams& params,
                                      const protocol::RequestContext& request);
// require_heap, for a method that needs the heap's references: a heap loaded
// identity-only (a diff's A or C) is loaded again from its file with them;
// -32803 invalidArgument when it has no file to read.
HeapEntry require_heap_with_references(DaemonContext& ctx, const std::string& heap,
                                       const protocol::RequestContext& request);
// stats' and explain's dump k read again with its references, when a
// compaction between B and C asks for C's (engine/later_references.h):
// loaded as loadHeap would, and kept by the store like any other heap.
engine::ReadWithReferences reread_diff_heap(DaemonContext& ctx, const DiffHeaps& heaps,
                                            const protocol::RequestContext& request);
// The diff's dumps as engine/ takes them: D1..DN of a series, else A B [C];
// held, or streamed.
engine::DiffSet diff_set(const DiffHeaps& heaps);
// The diff's files, for its answer's `files` (engine/ names them by the rule
// of results/dump_files.h): D1..DN of a series, else A B [C].
std::vector<std::string> diff_paths(const DiffHeaps& heaps);
// params.addresses: every entry must be hex (-32602 naming its index), and
// there must be at least one.
std::vector<Address> parse_address_list(const std::vector<std::string>& texts);
// `limit: 0` means "no limit" on every method (docs/protocol.md).
std::size_t limit_or_all(std::size_t limit);

}  // namespace heapleak::daemon
