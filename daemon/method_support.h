// Small helpers shared by the method families: core errors to wire errors,
// heap and address lookups that answer -32803 with a reason, and running a
// method on the query pool.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/heap.h"
#include "daemon/daemon_context.h"
#include "daemon/heap_store.h"
#include "protocol/binder.h"
#include "protocol/error.h"

namespace heapleak::daemon {

protocol::RpcError to_rpc_error(const Error& error);

// Throw protocol::RpcException: -32803 unknownHeap / unknownAddress, -32602
// for an address that is not hex.
HeapEntry require_heap(const HeapStore& store, const std::string& id_or_name);
ObjectIndex require_object(const Heap& heap, const std::string& address);
// params.addresses: every entry must be hex (-32602 naming its index), and
// there must be at least one.
std::vector<Address> parse_address_list(const std::vector<std::string>& texts);

// Registers `method` to run `work(ctx, params, stop)` -> json::value on the
// query pool, so heavy work never holds up a connection's input thread. A
// request cancelled (or whose client left) while it waited in the queue is
// answered -32800 without running; long work checks `stop` itself.
// Exceptions become error replies.
template <class Params, class Work>
void add_on_query_pool(protocol::Binder& binder, DaemonContext& ctx, std::string_view method, Work work) {
  binder.add_async<Params, boost::json::value>(
      method, [&ctx, work](Params params, protocol::RequestContext rc, protocol::TypedReply<boost::json::value> reply) {
        ctx.queries.post([&ctx, work, params = std::move(params), stop = rc.stop, reply] {
          if (stop.stop_requested()) {
            reply.cancelled();
            return;
          }
          try {
            reply(work(ctx, params, stop));
          } catch (const protocol::RpcException& e) {
            reply.error(e.error());
          } catch (const std::exception& e) {
            reply.error(protocol::internal_error(std::string("internal error: ") + e.what()));
          }
        });
      });
}

}  // namespace heapleak::daemon
