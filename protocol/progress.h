// Work-done progress for one request: `$/progress {token, value:{kind, ...}}`
// sent only when the request carried params.workDoneToken. Keeps the LSP
// rules: begin first, percentage never falls, at most ~10 reports a second,
// nothing after end. The Reply ends it before answering. Thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace heapleak::protocol {

struct ProgressOptions {
  std::chrono::milliseconds min_interval{100};  // between two reports
  // Injected by tests; steady_clock::now when empty.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

class Progress {
 public:
  // Sends one whole `$/progress` notification object.
  using Send = std::function<void(boost::json::object notification)>;

  Progress() = default;  // inert: the request had no workDoneToken
  Progress(boost::json::value token, std::string default_title, Send send,
           ProgressOptions options = {});

  bool active() const { return state_ != nullptr; }

  void begin(std::string_view title, std::string_view message = {}) const;
  // percentage 0..100, clamped and kept monotonic; sends begin first if needed;
  // dropped when the last report was under min_interval ago.
  void report(unsigned percentage, std::string_view message = {}) const;
  // Sends end if begin was sent; idempotent. Reply calls it before answering.
  void end(std::string_view message = {}) const;

  bool begun() const;
  bool ended() const;

  // A share of this progress, for one phase of a request that has several
  // (load B, then read A and C against it): the part's percentages 0..100
  // are this one's from..to. Its begin() begins this progress if nothing
  // has yet, else its title becomes the message of the part's reports; its
  // end() does nothing (the whole ends with the reply).
  Progress part(unsigned from, unsigned to) const;

 private:
  struct State;
  struct Part;
  std::shared_ptr<State> state_;
  std::shared_ptr<Part> part_;  // null: the whole
};

}  // namespace heapleak::protocol
