// Reply: the one answer a request gets. Copyable handle to shared state, safe
// to call from any thread; the first call wins, later calls are ignored and
// logged; if every copy is destroyed unanswered the peer gets -32603 "handler
// never replied". An error after $/cancelRequest becomes -32800.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>

#include "protocol/error.h"
#include "protocol/logger.h"
#include "protocol/progress.h"

namespace heapleak::protocol {

class Reply {
 public:
  struct Target {
    boost::json::value id;
    std::string method;
    // Receives the whole response object exactly once (session or batch).
    std::function<void(boost::json::object response)> deliver;
    Progress progress;              // ended before the response goes out
    std::stop_token stop;           // set by $/cancelRequest
    std::function<void()> on_done;  // e.g. leave the cancel registry
    std::shared_ptr<Logger> logger;
  };

  explicit Reply(Target target);

  void result(boost::json::value value) const;
  void error(RpcError error) const;
  void cancelled() const { error(cancelled_error()); }

  bool replied() const;
  const boost::json::value& id() const;
  const std::string& method() const;
  const std::stop_token& stop() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace heapleak::protocol
