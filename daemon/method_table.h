// The one way a method family registers its handlers: each
// register_*_methods is a short table of (name from protocol/method_names.h,
// execution policy, run_<method>), and register_all_methods builds the
// daemon's whole table (a unit test checks it against the protocol's list).
#pragma once

#include <boost/json/value.hpp>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "daemon/daemon_context.h"
#include "daemon/query_task.h"
#include "protocol/binder.h"
#include "protocol/error.h"

namespace heapleak::daemon {

// Where a method's work runs.
enum class Runs {
  // Cheap: on the connection's input thread; a request that must wait for a
  // load parks and later resumes on the query pool.
  kInline,
  // Diffs, graph searches, record reads: never hold up a connection's cheap
  // requests. Parks like kInline while a heap it names is loading.
  kOnQueryPool,
  // Loads: run_<method> admits the request on the input thread (so the name
  // and the memory budget are taken at once) and returns the LoadJob, which
  // runs on the load pool.
  kOnLoadPool,
};

// The part of a kOnLoadPool method that runs on the load pool. It answers
// through the reply itself, so the answer can go out at the right moment
// (loadHeap's before the queries that waited for it resume); what it throws
// is answered as an error.
using LoadJob = std::function<void(const protocol::Reply& reply)>;

class MethodTable {
 public:
  MethodTable(protocol::Binder& binder, DaemonContext& ctx) : binder_(binder), ctx_(ctx) {}

  // run returns boost::json::value or ReplyThen (kInline, kOnQueryPool), or
  // LoadJob (kOnLoadPool). Exceptions become error replies wherever they are
  // thrown: RpcException keeps its error, anything else is -32603.
  template <class Params, class Out>
  void add(std::string_view method, Runs runs, RunFn<Params, Out> run) {
    DaemonContext& ctx = ctx_;
    if constexpr (std::is_same_v<Out, LoadJob>) {
      if (runs != Runs::kOnLoadPool) throw std::logic_error(std::string(method) + ": not a load");
      binder_.add_async<Params>(method, [&ctx, run](Params params, protocol::RequestContext request,
                                                    protocol::Reply reply) {
        LoadJob job = run(ctx, params, request);
        ctx.loads.post([job = std::move(job), reply] { answer(reply, job); });
      });
    } else {
      if (runs == Runs::kOnLoadPool) {
        throw std::logic_error(std::string(method) + ": a load must return a LoadJob");
      }
      const bool pooled = runs == Runs::kOnQueryPool;
      binder_.add_async<Params>(
          method, [&ctx, run, pooled](Params params, protocol::RequestContext request,
                                      protocol::Reply reply) {
            auto task = std::make_shared<QueryTask<Params, Out>>(
                ctx, run, std::move(params), std::move(request), std::move(reply));
            if (pooled) {
              task->post();
            } else {
              task->run();
            }
          });
    }
  }

 private:
  static void answer(const protocol::Reply& reply, const LoadJob& job) {
    try {
      job(reply);
    } catch (const protocol::RpcException& e) {
      reply.error(e.error());
    } catch (const std::exception& e) {
      reply.error(protocol::internal_error(std::string("internal error: ") + e.what()));
    }
  }

  protocol::Binder& binder_;
  DaemonContext& ctx_;
};

// One per family file (heap_methods.cpp, analysis_methods.cpp, ...).
void register_heap_methods(MethodTable& table);
void register_analysis_methods(MethodTable& table);
void register_browse_methods(MethodTable& table);
void register_ownership_methods(MethodTable& table);
void register_report_methods(MethodTable& table);

// Every method heapleakd serves: what main and the method-table test use.
void register_all_methods(protocol::Binder& binder, DaemonContext& ctx);

}  // namespace heapleak::daemon
