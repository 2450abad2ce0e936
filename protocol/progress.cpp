#include "protocol/progress.h"

#include <algorithm>
#include <mutex>

#include "protocol/message.h"
#include "protocol/method_names.h"

namespace heapleak::protocol {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

struct Progress::State {
  json::value token;
  std::string default_title;
  Send send;
  ProgressOptions options;

  // Held while sending, so notifications from two threads keep their order
  // and nothing slips out after end.
  std::mutex mutex;
  bool begun = false;
  bool ended = false;
  unsigned percentage = 0;
  Clock::time_point last_sent{};

  Clock::time_point now() const { return options.clock ? options.clock() : Clock::now(); }

  void emit(json::object value) {
    json::object params;
    params["token"] = token;
    params["value"] = std::move(value);
    send(make_notification(methods::kProgress, std::move(params)));
    last_sent = now();
  }

  void begin_locked(std::string_view title, std::string_view message) {
    json::object value;
    value["kind"] = "begin";
    value["title"] = title.empty() ? std::string_view(default_title) : title;
    value["cancellable"] = true;
    value["percentage"] = percentage;
    if (!message.empty()) value["message"] = message;
    begun = true;
    emit(std::move(value));
  }
};

struct Progress::Part {
  unsigned from = 0;
  unsigned to = 100;
  std::string message;  // guarded by State::mutex
};

Progress::Progress(json::value token, std::string default_title, Send send, ProgressOptions options)
    : state_(std::make_shared<State>()) {
  state_->token = std::move(token);
  state_->default_title = std::move(default_title);
  state_->send = std::move(send);
  state_->options = std::move(options);
}

void Progress::begin(std::string_view title, std::string_view message) const {
  if (!state_) return;
  std::lock_guard lock(state_->mutex);
  if (part_ && state_->begun && !state_->ended) part_->message = title;
  if (state_->begun || state_->ended) return;
  state_->begin_locked(title, message);
}

void Progress::report(unsigned percentage, std::string_view message) const {
  if (!state_) return;
  std::lock_guard lock(state_->mutex);
  if (state_->ended) return;
  if (part_) {
    percentage = part_->from + std::min(percentage, 100u) * (part_->to - part_->from) / 100;
    if (message.empty()) message = part_->message;
  }
  const unsigned clamped = std::max(state_->percentage, std::min(percentage, 100u));
  if (!state_->begun) {
    state_->percentage = clamped;
    state_->begin_locked({}, message);
    return;
  }
  if (state_->now() - state_->last_sent < state_->options.min_interval) return;
  state_->percentage = clamped;
  json::object value;
  value["kind"] = "report";
  value["percentage"] = clamped;
  if (!message.empty()) value["message"] = message;
  state_->emit(std::move(value));
}

void Progress::end(std::string_view message) const {
  if (!state_ || part_) return;
  std::lock_guard lock(state_->mutex);
  if (state_->ended) return;
  state_->ended = true;
  if (!state_->begun) return;  // never started: LSP wants no lone end
  json::object value;
  value["kind"] = "end";
  if (!message.empty()) value["message"] = message;
  state_->emit(std::move(value));
}

Progress Progress::part(unsigned from, unsigned to) const {
  Progress out = *this;
  if (!state_) return out;
  const unsigned outer_from = part_ ? part_->from : 0;
  const unsigned outer_to = part_ ? part_->to : 100;
  auto span = [&](unsigned p) {
    return outer_from + std::min(p, 100u) * (outer_to - outer_from) / 100;
  };
  out.part_ = std::make_shared<Part>();
  out.part_->from = span(from);
  out.part_->to = std::max(out.part_->from, span(to));
  return out;
}

bool Progress::begun() const {
  if (!state_) return false;
  std::lock_guard lock(state_->mutex);
  return state_->begun;
}

bool Progress::ended() const {
  if (!state_) return false;
  std::lock_guard lock(state_->mutex);
  return state_->ended;
}

}  // namespace heapleak::protocol
