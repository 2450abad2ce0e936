// Session: one connection's JSON-RPC server state machine (PROTOCOL.md
// lifecycle): initialize, initialized, shutdown, exit, batches, cancellation
// and progress, dispatching everything else through a shared Binder.
// Transport-agnostic: the owner feeds bytes in and gets whole frames out
// through a sink; no Asio, no threads of its own.
#pragma once

#include <atomic>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/binder.h"
#include "protocol/cancel_registry.h"
#include "protocol/frame_reader.h"
#include "protocol/logger.h"
#include "protocol/message.h"
#include "protocol/outbox.h"
#include "protocol/progress.h"

namespace heapleak::protocol {

class BatchCollector;

struct SessionOptions {
  std::string server_name = "heapleakd";
  std::string server_version;
  boost::json::object capabilities;  // returned verbatim by initialize
  FrameReaderOptions framing;
  // Until initialize succeeds, messages over this size are refused (-32600,
  // skipped unbuffered): a peer that has not authenticated gets no more room
  // than an initialize needs. 0: framing.max_message_bytes throughout.
  std::size_t max_message_bytes_before_initialize = 0;
  ProgressOptions progress;
  std::shared_ptr<Logger> logger;  // null: log nothing
  // The client's initialize params (clientInfo, ...), before the reply.
  std::function<void(const boost::json::value& params)> on_initialize;
  // The `exit` notification arrived; clean == shutdown came first. With
  // --stdio exit the process with clean ? 0 : 1; on a socket close the
  // connection. Called on the input thread.
  std::function<void(bool clean)> on_exit;
};

enum class SessionState { kUninitialized, kRunning, kShutdown, kExited };

class Session {
 public:
  using Sink = Outbox::Sink;

  // `sink` gets whole frames, never concurrently (see Outbox::Sink).
  Session(std::shared_ptr<const Binder> binder, SessionOptions options, Sink sink);
  // Calls close().
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Input thread only: bytes as read from the transport, split anywhere.
  // Handles every complete message before returning (sync handlers run here).
  void feed(std::string_view bytes);
  // Input thread only: the peer closed its end (reports a truncated frame).
  void finish_input();

  // A server-to-client notification (`heapleak/...`), from any thread, in the
  // framing the peer last used.
  void notify(std::string_view method, boost::json::value params);

  // Connection gone: cancels in-flight requests; once this returns the sink
  // is never called again, even by replies still running on workers.
  void close();

  SessionState state() const { return state_.load(); }
  // Set once `exit` arrived: 0 if `shutdown` came first, else 1.
  std::optional<int> exit_code() const;
  std::size_t in_flight() const { return cancels_->size(); }

 private:
  void handle_frame(Frame frame);
  void handle_frame_error(const FrameError& error);
  void dispatch(Message message, Framing framing, const std::shared_ptr<BatchCollector>& batch);
  void handle_request(Request request, Framing framing,
                      const std::shared_ptr<BatchCollector>& batch);
  void handle_notification(const Notification& notification);
  void handle_initialize(const Request& request, const Reply& reply);
  Reply make_reply(const boost::json::value& id, const std::string& method, Framing framing,
                   const std::shared_ptr<BatchCollector>& batch, Progress progress = {},
                   std::stop_token stop = {}, std::function<void()> on_done = {});

  std::shared_ptr<const Binder> binder_;
  SessionOptions options_;
  std::shared_ptr<Logger> logger_;
  std::shared_ptr<Outbox> outbox_;
  std::shared_ptr<CancelRegistry> cancels_;
  FrameReader reader_;
  std::atomic<SessionState> state_{SessionState::kUninitialized};
  std::atomic<int> exit_code_{-1};
  std::atomic<Framing> last_framing_{Framing::kContentLength};
};

}  // namespace heapleak::protocol
