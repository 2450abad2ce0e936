// An in-process fake client for Session tests: frames JSON like a real peer
// (either framing, optionally a few bytes at a time), captures what the
// server sends through the sink and parses it back. Thread-safe capture, so
// handlers may reply from worker threads.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/binder.h"
#include "protocol/frame_reader.h"
#include "protocol/frame_writer.h"
#include "protocol/session.h"

namespace heapleak::protocol::testing {

class FakeClient {
 public:
  explicit FakeClient(std::shared_ptr<Binder> binder = std::make_shared<Binder>(),
                      SessionOptions options = {})
      : session_(
            std::make_unique<Session>(std::move(binder), std::move(options),
                                      [this](std::string frame) { capture(std::move(frame)); })) {}

  Session& session() { return *session_; }
  void destroy_session() { session_.reset(); }

  // Feeds bytes to the session `chunk` bytes at a time (0: all at once).
  void send_raw(std::string_view bytes, std::size_t chunk = 0) {
    if (chunk == 0) chunk = bytes.size() ? bytes.size() : 1;
    for (std::size_t i = 0; i < bytes.size(); i += chunk) session_->feed(bytes.substr(i, chunk));
  }

  void send(const boost::json::value& message, Framing framing = Framing::kContentLength,
            std::size_t chunk = 0) {
    send_raw(write_frame(boost::json::serialize(message), framing), chunk);
  }

  // Sends a request with a fresh numeric id and returns that id.
  std::int64_t request(std::string_view method, boost::json::value params = nullptr,
                       Framing framing = Framing::kContentLength) {
    const std::int64_t id = next_id_++;
    boost::json::object message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) message["params"] = std::move(params);
    send(message, framing);
    return id;
  }

  void notify(std::string_view method, boost::json::value params = nullptr) {
    boost::json::object message{{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.is_null()) message["params"] = std::move(params);
    send(message);
  }

  // initialize + initialized; returns the initialize response.
  boost::json::value initialize() {
    const std::int64_t id = request("initialize", boost::json::object{});
    boost::json::value response = take_one();
    if (response.at("id") != boost::json::value(id)) throw std::runtime_error("bad initialize");
    notify("initialized", boost::json::object{});
    return response;
  }

  // Everything received so far, parsed; clears the queue.
  std::vector<boost::json::value> take() {
    std::lock_guard lock(mutex_);
    std::vector<boost::json::value> out;
    out.swap(received_);
    return out;
  }

  // Exactly one message received so far (throws otherwise).
  boost::json::value take_one() {
    auto all = take();
    if (all.size() != 1) {
      throw std::runtime_error("expected 1 message, got " + std::to_string(all.size()));
    }
    return all.front();
  }

  // Waits until at least n messages are queued (for replies from workers).
  bool wait_for(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return received_.size() >= n; });
  }

  std::size_t frame_count() const {
    std::lock_guard lock(mutex_);
    return frames_.size();
  }
  std::vector<std::string> frames() const {
    std::lock_guard lock(mutex_);
    return frames_;
  }
  std::vector<Framing> framings() const {
    std::lock_guard lock(mutex_);
    return framings_;
  }

 private:
  void capture(std::string frame) {
    std::lock_guard lock(mutex_);
    frames_.push_back(frame);
    // Each sink call must be exactly one whole frame.
    FrameReader reader;
    reader.feed(frame);
    auto event = reader.next();
    if (!event || !std::holds_alternative<Frame>(*event) || reader.next() ||
        reader.buffered_bytes() != 0) {
      throw std::runtime_error("sink got something other than one whole frame");
    }
    const Frame& parsed = std::get<Frame>(*event);
    framings_.push_back(parsed.framing);
    received_.push_back(boost::json::parse(parsed.payload));
    cv_.notify_all();
  }

  std::int64_t next_id_ = 1;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> frames_;
  std::vector<Framing> framings_;
  std::vector<boost::json::value> received_;
  // Last, so it is destroyed first: its close() stops worker replies before
  // the capture state above goes away.
  std::unique_ptr<Session> session_;
};

}  // namespace heapleak::protocol::testing
