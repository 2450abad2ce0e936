#include "clients/client/rpc_client.h"

#include <poll.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "clients/client/exit_codes.h"
#include "clients/client/interrupt.h"
#include "protocol/frame_writer.h"
#include "protocol/method_names.h"
#include "results/product/version.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

ClientError lost(const std::string& why) {
  return ClientError{kExitUnreachable, "lost the connection to heapleakd: " + why};
}

}  // namespace

void RpcClient::send_payload(std::string_view payload) {
  if (!transport_.write_all(protocol::write_frame(payload, protocol::Framing::kContentLength))) {
    throw lost(std::strerror(errno));
  }
}

void RpcClient::notify(std::string_view method, json::value params) {
  json::object message{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  send_payload(json::serialize(message));
}

RpcClient::Wait RpcClient::receive(json::value& message, int timeout_ms) {
  for (;;) {
    if (auto event = reader_.next()) {
      if (auto* error = std::get_if<protocol::FrameError>(&*event)) {
        throw ClientError{kExitDaemonError, "heapleakd sent a broken frame: " + error->message};
      }
      boost::system::error_code ec;
      message = json::parse(std::get<protocol::Frame>(*event).payload, ec);
      if (ec)
        throw ClientError{kExitDaemonError,
                          "heapleakd sent something that is not JSON: " + ec.message()};
      return Wait::kMessage;
    }
    pollfd fds[2] = {{transport_.read_fd(), POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
    const int ready = ::poll(fds, interrupt_fd() >= 0 ? 2 : 1, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;  // the handler wrote to the pipe; poll again to see it
      throw lost(std::strerror(errno));
    }
    if (ready == 0) return Wait::kTimedOut;
    if (interrupt_fd() >= 0 && (fds[1].revents & POLLIN) && take_interrupts() > 0)
      return Wait::kInterrupted;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      char buffer[64 * 1024];
      const long n = transport_.read_some(buffer, sizeof buffer);
      if (n < 0) throw lost(std::strerror(errno));
      if (n == 0) {
        reader_.finish();
        if (auto event = reader_.next(); event && std::holds_alternative<protocol::Frame>(*event)) {
          boost::system::error_code ec;
          message = json::parse(std::get<protocol::Frame>(*event).payload, ec);
          if (!ec) return Wait::kMessage;
        }
        throw lost("heapleakd closed the connection");
      }
      reader_.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
    }
  }
}

RpcReply RpcClient::call(std::string_view method, json::value params,
                         const NotificationHandler& on_notification) {
  const std::int64_t id = next_id_++;
  json::object request{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) request["params"] = std::move(params);
  send_payload(json::serialize(request));
  bool cancel_sent = false;
  for (;;) {
    json::value message;
    const Wait wait = receive(message);
    if (wait == Wait::kInterrupted) {
      if (cancel_sent)
        throw ClientError{kExitCancelled, "interrupted again: not waiting for the daemon"};
      cancel_sent = true;
      std::cerr << "\nheapleak-client: cancelling " << method
                << " (Ctrl-C again to stop waiting)\n";
      notify(protocol::methods::kCancelRequest, json::object{{"id", id}});
      continue;
    }
    if (wait != Wait::kMessage) continue;
    // A batch reply cannot be ours (we never send batches); look inside anyway.
    const json::array single{message};
    const json::array& messages = message.is_array() ? message.as_array() : single;
    for (const auto& entry : messages) {
      const json::object* object = entry.if_object();
      if (!object) continue;
      const json::value* method_field = object->if_contains("method");
      const json::value* id_field = object->if_contains("id");
      if (method_field && method_field->is_string() && !id_field) {
        if (on_notification) {
          const json::value* p = object->if_contains("params");
          on_notification(method_field->as_string(), p ? *p : json::value());
        }
        continue;
      }
      if (!id_field || !id_field->is_int64() || id_field->as_int64() != id) continue;
      RpcReply reply;
      if (const json::value* error = object->if_contains("error"); error && error->is_object()) {
        reply.error = error->as_object();
      } else if (const json::value* result = object->if_contains("result")) {
        reply.result = *result;
      }
      return reply;
    }
  }
}

json::value RpcClient::call_or_throw(std::string_view method, json::value params,
                                     const NotificationHandler& on_notification) {
  RpcReply reply = call(method, std::move(params), on_notification);
  if (reply.error) throw error_from_reply(*reply.error);
  // A dump named by path that a new dump rewrote since it was loaded: the
  // daemon reloaded it for this answer; say so, the answer is not the last one's.
  // A dump a diff streamed (read against B, never loaded) is read again
  // when it changed: said the same way.
  const auto notes = [&reply](std::string_view key) -> const json::array* {
    const json::value* value =
        reply.result.is_object() ? reply.result.as_object().if_contains(key) : nullptr;
    return value && value->is_array() ? &value->as_array() : nullptr;
  };
  const auto text = [](const json::value& note, std::string_view key) {
    const json::value* v = note.is_object() ? note.as_object().if_contains(key) : nullptr;
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  if (const json::array* reloaded = notes("reloaded")) {
    for (const auto& note : *reloaded) {
      std::cerr << "heapleak-client: " << text(note, "path") << " changed since it was loaded as "
                << text(note, "replaced") << " (" << text(note, "why") << "): reloaded it as "
                << text(note, "heap") << "\n";
    }
  }
  if (const json::array* streamed = notes("streamed")) {
    for (const auto& note : *streamed) {
      if (text(note, "why").empty()) continue;
      std::cerr << "heapleak-client: " << text(note, "path") << " changed since it was last read ("
                << text(note, "why") << "): read it again\n";
    }
  }
  return std::move(reply.result);
}

void RpcClient::initialize() {
  json::object params{
      {"processId", static_cast<std::int64_t>(::getpid())},
      {"clientInfo", json::object{{"name", "heapleak-client"}, {"version", kVersion}}},
      {"capabilities", json::object{}}};
  RpcReply reply = call(protocol::methods::kInitialize, std::move(params));
  if (reply.error) {
    ClientError error = error_from_reply(*reply.error);
    throw ClientError{kExitUnreachable, "heapleakd refused initialize: " + error.message};
  }
  notify(protocol::methods::kInitialized, json::object{});
}

}  // namespace heapleak::client
