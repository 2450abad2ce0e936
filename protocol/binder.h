// The typed handler table: method name -> params struct -> handler -> result
// struct, with Boost.JSON conversions in one place. Params decode through
// params.h (errors become -32602 with a field path); results through
// json::value_from. Lifecycle methods belong to the session, not here.
#pragma once

#include <boost/json/value.hpp>
#include <boost/json/value_from.hpp>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "protocol/error.h"
#include "protocol/params.h"
#include "protocol/progress.h"
#include "protocol/reply.h"

namespace heapleak::protocol {

// What a handler knows about its request besides the params.
struct RequestContext {
  boost::json::value id;
  std::string method;
  std::stop_token stop;  // $/cancelRequest (or the connection closing) stops it
  Progress progress;     // inert unless params.workDoneToken was given
  bool cancelled() const { return stop.stop_requested(); }
};

// A Reply that takes the handler's result struct.
template <class Result>
class TypedReply {
 public:
  explicit TypedReply(Reply reply) : reply_(std::move(reply)) {}
  void operator()(const Result& result) const { reply_.result(boost::json::value_from(result)); }
  void operator()(const RpcResult<Result>& outcome) const {
    if (outcome.has_value()) {
      (*this)(*outcome);
    } else {
      reply_.error(outcome.error());
    }
  }
  void error(RpcError error) const { reply_.error(std::move(error)); }
  void cancelled() const { reply_.cancelled(); }
  bool replied() const { return reply_.replied(); }
  const Reply& untyped() const { return reply_; }

 private:
  Reply reply_;
};

namespace detail {
template <class T>
struct IsRpcResult : std::false_type {};
template <class T>
struct IsRpcResult<RpcResult<T>> : std::true_type {};

// Decodes params or answers -32602 and returns nullopt.
template <class Params>
std::optional<Params> decode_params(const boost::json::value& params, const Reply& reply) {
  try {
    return read_value<Params>(params);
  } catch (const ParamsError& e) {
    reply.error(invalid_params(e.message()));
  } catch (const RpcException& e) {
    reply.error(e.error());
  } catch (const std::exception& e) {
    reply.error(invalid_params(std::string("params: ") + e.what()));
  }
  return std::nullopt;
}

template <class Out>
void send_outcome(const Reply& reply, Out&& out) {
  using T = std::remove_cvref_t<Out>;
  if constexpr (IsRpcResult<T>::value) {
    if (out.has_value()) {
      reply.result(boost::json::value_from(*out));
    } else {
      reply.error(out.error());
    }
  } else {
    reply.result(boost::json::value_from(std::forward<Out>(out)));
  }
}

// Exceptions never escape a handler: RpcException keeps its error, the rest -32603.
template <class F>
void guard(const Reply& reply, F&& body) {
  try {
    body();
  } catch (const RpcException& e) {
    reply.error(e.error());
  } catch (const std::exception& e) {
    reply.error(internal_error(std::string("internal error: ") + e.what()));
  } catch (...) {
    reply.error(internal_error("internal error: unknown exception"));
  }
}
}  // namespace detail

class Binder {
 public:
  using RequestHandler = std::function<void(const boost::json::value& params,
                                            const RequestContext& context, Reply reply)>;
  using NotificationHandler = std::function<void(const boost::json::value& params)>;

  // Untyped; the handler must (eventually) call reply exactly once.
  void add_raw(std::string_view method, RequestHandler handler);
  void add_raw_notification(std::string_view method, NotificationHandler handler);

  // Synchronous: handler(const Params&, const RequestContext&) returns a
  // Result, an RpcResult<Result>, or void (answers null). Runs on the
  // session's input thread, so keep it cheap.
  template <class Params, class F>
  void add(std::string_view method, F handler) {
    add_raw(method, [handler = std::move(handler)](const boost::json::value& params,
                                                   const RequestContext& context, Reply reply) {
      std::optional<Params> decoded = detail::decode_params<Params>(params, reply);
      if (!decoded) return;
      detail::guard(reply, [&] {
        using Out = std::invoke_result_t<F&, const Params&, const RequestContext&>;
        if constexpr (std::is_void_v<Out>) {
          handler(*decoded, context);
          reply.result(nullptr);
        } else {
          detail::send_outcome(reply, handler(*decoded, context));
        }
      });
    });
  }

  // Asynchronous: handler(Params, RequestContext, TypedReply<Result>) returns
  // at once and answers later from any thread. If every copy of the reply is
  // dropped unanswered the peer gets -32603.
  template <class Params, class Result, class F>
  void add_async(std::string_view method, F handler) {
    add_raw(method, [handler = std::move(handler)](const boost::json::value& params,
                                                   const RequestContext& context, Reply reply) {
      std::optional<Params> decoded = detail::decode_params<Params>(params, reply);
      if (!decoded) return;
      detail::guard(reply,
                    [&] { handler(std::move(*decoded), context, TypedReply<Result>(reply)); });
    });
  }

  // Client-to-server notifications (none today besides the session's own).
  template <class Params, class F>
  void add_notification(std::string_view method, F handler) {
    add_raw_notification(method, [handler = std::move(handler)](const boost::json::value& params) {
      handler(read_value<Params>(params));
    });
  }

  const RequestHandler* find_request(std::string_view method) const;
  const NotificationHandler* find_notification(std::string_view method) const;
  std::vector<std::string> request_methods() const;

 private:
  static void check_name(std::string_view method, bool taken);

  std::map<std::string, RequestHandler, std::less<>> requests_;
  std::map<std::string, NotificationHandler, std::less<>> notifications_;
};

}  // namespace heapleak::protocol
