// How a method's work runs: a QueryTask per request, on the query pool or
// inline on the connection's reader, that parks without holding a thread
// while a heap it names is still loading, and answers exactly once (result,
// error, or -32800 when cancelled or its client left).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "protocol/binder.h"
#include "protocol/error.h"

namespace heapleak::daemon {

// One request on the query pool. It may park, holding no thread, while a
// heap it names is still loading: the end of that load, or a cancel, posts it
// again, exactly once per parking (`parked_` decides who posts).
template <class Params, class Work>
class QueryTask : public std::enable_shared_from_this<QueryTask<Params, Work>> {
 public:
  QueryTask(DaemonContext& ctx, Work work, Params params, std::stop_token stop,
            protocol::TypedReply<boost::json::value> reply)
      : ctx_(ctx),
        work_(std::move(work)),
        params_(std::move(params)),
        stop_(std::move(stop)),
        reply_(std::move(reply)) {}

  void post() {
    ctx_.queries.post([self = this->shared_from_this()] { self->run(); });
  }

  // Runs on the calling thread; if it parks, it runs again on the query pool.
  void run() {
    if (stop_.stop_requested()) {
      reply_.cancelled();
      return;
    }
    try {
      reply_(work_(ctx_, params_, stop_));
    } catch (const HeapStillLoading& loading) {
      park(loading.name());
    } catch (const protocol::RpcException& e) {
      reply_.error(e.error());
    } catch (const std::exception& e) {
      reply_.error(protocol::internal_error(std::string("internal error: ") + e.what()));
    }
  }

 private:
  // Only this thread touches the task here (it is neither queued nor parked),
  // so the cancel callback is set up once without a race.
  void park(const std::string& name) {
    if (!on_cancel_) {
      on_cancel_.emplace(stop_, Resume{this->weak_from_this()});
    }
    parked_.store(true);
    // The store's waiter list owns the parked task until the load ends.
    if (!ctx_.store.when_load_ends(name, [self = this->shared_from_this()] { self->resume(); })) {
      resume();  // it ended meanwhile
    }
    if (stop_.stop_requested()) resume();  // cancelled before the callback could see parked_
  }

  void resume() {
    if (parked_.exchange(false)) post();
  }

  // The cancel callback holds the task weakly (the task owns the callback).
  struct Resume {
    std::weak_ptr<QueryTask> task;
    void operator()() const {
      if (auto self = task.lock()) self->resume();
    }
  };

  DaemonContext& ctx_;
  Work work_;
  Params params_;
  std::stop_token stop_;
  protocol::TypedReply<boost::json::value> reply_;
  std::atomic<bool> parked_{false};
  std::optional<std::stop_callback<Resume>> on_cancel_;
};

// Registers `method` to run `work(ctx, params, stop)` -> json::value on the
// query pool, so heavy work never holds up a connection's input thread. A
// request cancelled (or whose client left) while it waited in the queue is
// answered -32800 without running; long work checks `stop` itself.
// Exceptions become error replies.
template <class Params, class Work>
void add_on_query_pool(protocol::Binder& binder, DaemonContext& ctx, std::string_view method,
                       Work work) {
  binder.add_async<Params, boost::json::value>(
      method, [&ctx, work](Params params, protocol::RequestContext rc,
                           protocol::TypedReply<boost::json::value> reply) {
        std::make_shared<QueryTask<Params, Work>>(ctx, work, std::move(params), rc.stop,
                                                  std::move(reply))
            ->post();
      });
}

// Like add_on_query_pool, for cheap methods answered on the connection's
// input thread; only a request that must wait for a load moves to the pool.
template <class Params, class Work>
void add_inline(protocol::Binder& binder, DaemonContext& ctx, std::string_view method, Work work) {
  binder.add_async<Params, boost::json::value>(
      method, [&ctx, work](Params params, protocol::RequestContext rc,
                           protocol::TypedReply<boost::json::value> reply) {
        std::make_shared<QueryTask<Params, Work>>(ctx, work, std::move(params), rc.stop,
                                                  std::move(reply))
            ->run();
      });
}

}  // namespace heapleak::daemon
