// object, referrers, references: browsing one heap object by object. The
// edge pages are cheap and answered inline; `object` re-reads the record
// from the dump file, so it runs on the query pool.
#include <boost/json.hpp>

#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/method_table.h"
#include "daemon/wire_params.h"
#include "protocol/method_names.h"
#include "results/browse_json.h"

namespace heapleak::daemon {
using namespace results;
namespace json = boost::json;
namespace methods = protocol::methods;
using protocol::RequestContext;

namespace {

// Paging runs inline, on the connection's thread: a heap loaded
// identity-only (a diff's A or C) is not read again here, only said so.
HeapEntry require_references(HeapEntry entry) {
  if (!entry.heap->has_edges()) {
    throw protocol::RpcException(protocol::domain_error(
        "invalidArgument", "heap " + entry.id +
                               " was loaded identity-only (a diff's A or C keeps no "
                               "references): ask `object` on it, or loadHeap its file, to "
                               "read them"));
  }
  return entry;
}

json::value run_referrers(DaemonContext& ctx, const PageParams& params,
                          const RequestContext& request) {
  const HeapEntry entry = require_references(require_heap(ctx, params.heap, request));
  const ObjectIndex i = require_object(*entry.heap, params.address);
  return edge_page_json(*entry.heap, i, entry.heap->referrers(i), params.offset,
                        limit_or_all(params.limit));
}

json::value run_references(DaemonContext& ctx, const PageParams& params,
                           const RequestContext& request) {
  const HeapEntry entry = require_references(require_heap(ctx, params.heap, request));
  const ObjectIndex i = require_object(*entry.heap, params.address);
  return edge_page_json(*entry.heap, i, entry.heap->references(i), params.offset,
                        limit_or_all(params.limit));
}

json::value run_object(DaemonContext& ctx, const AddressParams& params,
                       const RequestContext& request) {
  const HeapEntry entry = require_heap_with_references(ctx, params.heap, request);
  json::object out = object_json(*entry.heap, require_object(*entry.heap, params.address));
  out["heap"] = entry.id;
  return out;
}

}  // namespace

void register_browse_methods(MethodTable& table) {
  table.add(methods::kReferrers, Runs::kInline, run_referrers);
  table.add(methods::kReferences, Runs::kInline, run_references);
  table.add(methods::kObject, Runs::kOnQueryPool, run_object);
}

}  // namespace heapleak::daemon
