#include "protocol/session.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <chrono>

#include "protocol/batch.h"
#include "protocol/method_names.h"

namespace heapleak::protocol {
namespace json = boost::json;
using SteadyClock = std::chrono::steady_clock;

namespace {

std::string describe_call(std::string_view method, const json::value& id) {
  return std::string(method.empty() ? "(invalid)" : method) + "(" + describe_id(id) + ")";
}

// The token of a request that asked for progress, if any.
std::optional<json::value> work_done_token(const json::value& params) {
  const json::object* object = params.if_object();
  if (!object) return std::nullopt;
  const json::value* token = object->if_contains("workDoneToken");
  if (!token || !(token->is_string() || token->is_int64() || token->is_uint64())) {
    return std::nullopt;
  }
  return *token;
}

}  // namespace

Session::Session(std::shared_ptr<const Binder> binder, SessionOptions options, Sink sink)
    : binder_(std::move(binder)),
      options_(std::move(options)),
      logger_(options_.logger ? options_.logger : make_null_logger()),
      outbox_(std::make_shared<Outbox>(std::move(sink), logger_)),
      cancels_(std::make_shared<CancelRegistry>()),
      reader_(options_.framing) {
  if (!binder_) binder_ = std::make_shared<Binder>();
  if (options_.max_message_bytes_before_initialize != 0) {
    reader_.set_max_message_bytes(
        std::min(options_.max_message_bytes_before_initialize, options_.framing.max_message_bytes));
  }
}

Session::~Session() { close(); }

void Session::close() {
  cancels_->cancel_all();
  outbox_->close();
}

std::optional<int> Session::exit_code() const {
  const int code = exit_code_.load();
  return code < 0 ? std::nullopt : std::optional<int>(code);
}

void Session::feed(std::string_view bytes) {
  reader_.feed(bytes);
  while (auto event = reader_.next()) {
    if (auto* frame = std::get_if<Frame>(&*event)) {
      handle_frame(std::move(*frame));
    } else {
      handle_frame_error(std::get<FrameError>(*event));
    }
  }
}

void Session::finish_input() {
  reader_.finish();
  feed({});
}

void Session::notify(std::string_view method, json::value params) {
  outbox_->send(make_notification(method, std::move(params)), last_framing_.load());
}

void Session::handle_frame_error(const FrameError& error) {
  logger_->error("framing: " + error.message);
  // Input ended: nobody is left to answer. After exit we answer nothing at all.
  if (error.kind == FrameErrorKind::kTruncated || state() == SessionState::kExited) return;
  const int code = error.kind == FrameErrorKind::kTooLarge ? kInvalidRequest : kParseError;
  outbox_->send(make_error(nullptr, RpcError{code, error.message, std::nullopt}), error.framing);
}

void Session::handle_frame(Frame frame) {
  if (logger_->enabled(LogLevel::kVerbose)) logger_->verbose("<<< " + frame.payload);
  last_framing_.store(frame.framing);
  ParsedPayload parsed = parse_payload(frame.payload);
  if (!parsed.batch) {
    dispatch(std::move(parsed.messages.front()), frame.framing, nullptr);
    return;
  }
  auto batch = std::make_shared<BatchCollector>(outbox_, frame.framing);
  for (Message& message : parsed.messages) dispatch(std::move(message), frame.framing, batch);
  batch->seal();
}

void Session::dispatch(Message message, Framing framing,
                       const std::shared_ptr<BatchCollector>& batch) {
  if (state() == SessionState::kExited) return;  // the connection is going away
  if (auto* request = std::get_if<Request>(&message)) {
    handle_request(std::move(*request), framing, batch);
  } else if (auto* notification = std::get_if<Notification>(&message)) {
    handle_notification(*notification);
  } else if (auto* invalid = std::get_if<InvalidMessage>(&message)) {
    make_reply(invalid->id, "", framing, batch).error(invalid->error);
  } else {
    logger_->info("ignoring a response to id " + describe_id(std::get<Response>(message).id));
  }
}

Reply Session::make_reply(const json::value& id, const std::string& method, Framing framing,
                          const std::shared_ptr<BatchCollector>& batch, Progress progress,
                          std::stop_token stop, std::function<void()> on_done) {
  if (batch) batch->expect();
  const auto started = SteadyClock::now();
  auto deliver = [outbox = std::weak_ptr<Outbox>(outbox_), batch, framing, logger = logger_,
                  call = describe_call(method, id), started](json::object response) {
    if (logger->enabled(LogLevel::kInfo)) {
      const auto ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started)
              .count();
      std::string line = "--> ";
      if (const json::value* error = response.if_contains("error")) {
        line += "error " + call + " " + json::serialize(error->at("code")) + " " +
                std::string(error->at("message").as_string());
      } else {
        line += "reply " + call;
      }
      logger->info(line + " " + std::to_string(ms) + " ms");
    }
    if (batch) {
      batch->add(std::move(response));
    } else if (auto out = outbox.lock()) {
      out->send(response, framing);
    }
  };
  return Reply(Reply::Target{id, method, std::move(deliver), std::move(progress), std::move(stop),
                             std::move(on_done), logger_});
}

void Session::handle_request(Request request, Framing framing,
                             const std::shared_ptr<BatchCollector>& batch) {
  logger_->info("<-- " + describe_call(request.method, request.id));
  const SessionState state = this->state();
  if (state == SessionState::kUninitialized) {
    Reply reply = make_reply(request.id, request.method, framing, batch);
    if (request.method == methods::kInitialize) {
      handle_initialize(request, reply);
    } else {
      reply.error(RpcError{kServerNotInitialized, "server not initialized", std::nullopt});
    }
    return;
  }
  if (state == SessionState::kShutdown) {
    make_reply(request.id, request.method, framing, batch)
        .error(RpcError{kInvalidRequest, "server is shutting down", std::nullopt});
    return;
  }
  if (request.method == methods::kInitialize) {
    make_reply(request.id, request.method, framing, batch)
        .error(RpcError{kInvalidRequest, "initialize was already received", std::nullopt});
    return;
  }
  if (request.method == methods::kShutdown) {
    state_.store(SessionState::kShutdown);
    make_reply(request.id, request.method, framing, batch).result(nullptr);
    return;
  }
  const Binder::RequestHandler* handler = binder_->find_request(request.method);
  if (!handler) {
    make_reply(request.id, request.method, framing, batch)
        .error(RpcError{kMethodNotFound, "unknown method: " + request.method, std::nullopt});
    return;
  }

  auto [ticket, stop] = cancels_->enter(request.id);
  Progress progress;
  if (auto token = work_done_token(request.params)) {
    auto send = [outbox = std::weak_ptr<Outbox>(outbox_), framing](json::object notification) {
      if (auto out = outbox.lock()) out->send(notification, framing);
    };
    progress = Progress(std::move(*token), request.method, std::move(send), options_.progress);
  }
  auto on_done = [cancels = std::weak_ptr<CancelRegistry>(cancels_), ticket = ticket] {
    if (auto registry = cancels.lock()) registry->leave(ticket);
  };
  Reply reply =
      make_reply(request.id, request.method, framing, batch, progress, stop, std::move(on_done));
  const RequestContext context{request.id, request.method, stop, progress};
  detail::guard(reply, [&] { (*handler)(request.params, context, reply); });
}

void Session::handle_initialize(const Request& request, const Reply& reply) {
  if (options_.on_initialize) {
    try {
      options_.on_initialize(request.params);
    } catch (const std::exception& e) {
      reply.error(internal_error(std::string("initialize failed: ") + e.what()));
      return;
    }
  }
  json::object server_info;
  server_info["name"] = options_.server_name;
  server_info["version"] = options_.server_version;
  json::object result;
  result["serverInfo"] = std::move(server_info);
  result["capabilities"] = options_.capabilities;
  state_.store(SessionState::kRunning);
  reader_.set_max_message_bytes(options_.framing.max_message_bytes);
  reply.result(std::move(result));
}

void Session::handle_notification(const Notification& notification) {
  const std::string& method = notification.method;
  logger_->info("<-- " + method);
  const SessionState state = this->state();
  if (method == methods::kExit) {
    const bool clean = state == SessionState::kShutdown;
    exit_code_.store(clean ? 0 : 1);
    state_.store(SessionState::kExited);
    cancels_->cancel_all();
    if (options_.on_exit) options_.on_exit(clean);
    return;
  }
  if (state == SessionState::kUninitialized) {
    logger_->verbose("dropped " + method + ": not initialized");
    return;
  }
  if (method == methods::kCancelRequest) {
    const json::object* params = notification.params.if_object();
    const json::value* id = params ? params->if_contains("id") : nullptr;
    if (!id || !(id->is_number() || id->is_string())) {
      logger_->error("$/cancelRequest without a usable id ignored");
    } else if (!cancels_->cancel(*id)) {
      logger_->verbose("$/cancelRequest for " + describe_id(*id) + ": not in flight");
    }
    return;
  }
  if (method == methods::kInitialized || state == SessionState::kShutdown) return;
  if (const Binder::NotificationHandler* handler = binder_->find_notification(method)) {
    try {
      (*handler)(notification.params);
    } catch (const ParamsError& e) {
      logger_->error(method + ": " + e.message());
    } catch (const std::exception& e) {
      logger_->error(method + " failed: " + e.what());
    }
    return;
  }
  // Unknown `$/` notifications are optional by definition; others are worth a line.
  if (method.rfind("$/", 0) != 0) logger_->info("ignoring unknown notification " + method);
}

}  // namespace heapleak::protocol
