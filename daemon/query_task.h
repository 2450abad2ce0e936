// How an inline or query-pool method's work runs (daemon/method_table.h picks
// which): a QueryTask per request that parks without holding a thread while a
// heap it names is still loading, and answers exactly once (result, error, or
// -32800 when cancelled or its client left).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <type_traits>

#include "daemon/daemon_context.h"
#include "daemon/method_support.h"
#include "daemon/path_heaps.h"
#include "protocol/binder.h"
#include "protocol/error.h"

namespace heapleak::daemon {

// A result and what to do once it has been sent: stopDaemon answers first,
// so its client sees the reply, then stops the daemon.
struct ReplyThen {
  boost::json::value result;
  std::function<void()> then;
};

// A method's handler: `run_<method>(ctx, params, request)`. Out is
// boost::json::value or ReplyThen (see daemon/method_table.h for LoadJob).
template <class Params, class Out>
using RunFn = Out (*)(DaemonContext&, const Params&, const protocol::RequestContext&);

// One request on the query pool. It may park, holding no thread, while a
// heap it names is still loading: the end of that load, or a cancel, posts it
// again, exactly once per parking (`parked_` decides who posts).
template <class Params, class Out>
class QueryTask : public std::enable_shared_from_this<QueryTask<Params, Out>> {
 public:
  QueryTask(DaemonContext& ctx, RunFn<Params, Out> work, Params params,
            protocol::RequestContext request, protocol::Reply reply)
      : ctx_(ctx),
        work_(work),
        params_(std::move(params)),
        request_(std::move(request)),
        stop_(request_.stop),
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
      // Heaps named by path and loaded or reloaded for this request are
      // said so in its result (daemon/path_heaps.h).
      PathLoadNotes notes;
      if constexpr (std::is_same_v<Out, ReplyThen>) {
        ReplyThen out = work_(ctx_, params_, request_);
        notes.annotate(out.result);
        reply_.result(std::move(out.result));
        if (out.then) out.then();
      } else {
        boost::json::value out = work_(ctx_, params_, request_);
        notes.annotate(out);
        reply_.result(std::move(out));
      }
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
  RunFn<Params, Out> work_;
  Params params_;
  protocol::RequestContext request_;
  std::stop_token stop_;
  protocol::Reply reply_;
  std::atomic<bool> parked_{false};
  std::optional<std::stop_callback<Resume>> on_cancel_;
};

}  // namespace heapleak::daemon
