// The handler table: method name -> params struct -> handler -> JSON result,
// with params decoding in one place (params.h; errors become -32602 with a
// field path). Results are boost::json values: the daemon builds them in
// results/. Lifecycle methods belong to the session, not here.
#pragma once

#include <boost/json/value.hpp>
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

namespace detail {
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
  // Client-to-server notifications (none today besides the session's own).
  void add_raw_notification(std::string_view method, NotificationHandler handler);

  // Synchronous: handler(const Params&, const RequestContext&) returns a
  // boost::json::value, or void (answers null). Runs on the session's input
  // thread, so keep it cheap.
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
          reply.result(boost::json::value(handler(*decoded, context)));
        }
      });
    });
  }

  // Asynchronous: handler(Params, RequestContext, Reply) returns at once and
  // answers later from any thread. If every copy of the reply is dropped
  // unanswered the peer gets -32603.
  template <class Params, class F>
  void add_async(std::string_view method, F handler) {
    add_raw(method, [handler = std::move(handler)](const boost::json::value& params,
                                                   const RequestContext& context, Reply reply) {
      std::optional<Params> decoded = detail::decode_params<Params>(params, reply);
      if (!decoded) return;
      detail::guard(reply, [&] { handler(std::move(*decoded), context, reply); });
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
