#include "protocol/reply.h"

#include <atomic>

#include "protocol/message.h"

namespace heapleak::protocol {
namespace json = boost::json;

struct Reply::State {
  Target target;
  std::atomic<bool> replied{false};

  explicit State(Target t) : target(std::move(t)) {}

  ~State() {
    if (replied.load()) return;
    try {
      finish(make_error(target.id, internal_error("handler never replied")));
    } catch (...) {
      // A destructor must not throw; the connection is likely gone anyway.
    }
  }

  // Returns false (and logs) when a reply was already sent.
  bool claim() {
    if (!replied.exchange(true)) return true;
    if (target.logger) {
      target.logger->error("second reply to " + target.method + "(" + describe_id(target.id) +
                           ") ignored");
    }
    return false;
  }

  void finish(json::object response) {
    replied.store(true);
    target.progress.end();
    if (target.on_done) target.on_done();
    if (target.deliver) target.deliver(std::move(response));
  }
};

Reply::Reply(Target target) : state_(std::make_shared<State>(std::move(target))) {}

void Reply::result(json::value value) const {
  if (!state_->claim()) return;
  state_->finish(make_result(state_->target.id, std::move(value)));
}

void Reply::error(RpcError error) const {
  if (!state_->claim()) return;
  // The peer asked to cancel: whatever went wrong since, the answer is -32800.
  if (state_->target.stop.stop_requested()) error = cancelled_error();
  state_->finish(make_error(state_->target.id, error));
}

bool Reply::replied() const { return state_->replied.load(); }
const json::value& Reply::id() const { return state_->target.id; }
const std::string& Reply::method() const { return state_->target.method; }
const std::stop_token& Reply::stop() const { return state_->target.stop; }

}  // namespace heapleak::protocol
