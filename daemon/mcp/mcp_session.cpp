#include "daemon/mcp/mcp_session.h"

#include <atomic>
#include <boost/json/serialize.hpp>
#include <string_view>

#include "protocol/error.h"
#include "protocol/error_codes.h"
#include "protocol/framing.h"

namespace heapleak::daemon {
namespace json = boost::json;
using protocol::Framing;

namespace {

constexpr std::string_view kInstructions =
    "heapleak finds why a Ruby process leaks memory from ObjectSpace.dump_all heap dumps. "
    "Load three dumps of one process taken some time apart (load_dump: A, then B, then C), "
    "then call find_leaks with baseline=A, target=B, later=C: each row is one leak, with the "
    "object that holds it and how Ruby reaches it. path_to_root, inspect_object, owner and "
    "common_retainer answer follow-up questions about any address in a heap. write_report "
    "writes the leaks as one HTML page to a file, to hand the user a link.";

// A progress token as MCP allows it: a string or an integer.
std::optional<json::value> progress_token(const json::object& params) {
  const json::value* meta = params.if_contains("_meta");
  if (!meta || !meta->is_object()) return std::nullopt;
  const json::value* token = meta->as_object().if_contains("progressToken");
  if (!token || !(token->is_string() || token->is_int64() || token->is_uint64())) {
    return std::nullopt;
  }
  return *token;
}

// The daemon's LSP-style `$/progress` (begin, report, end; percentages) as
// MCP's notifications/progress, whose `progress` must rise with every
// notification: begin and reports go out when they rise, end is left to the
// result that follows it.
protocol::Progress::Send mcp_progress(std::weak_ptr<protocol::Outbox> outbox, json::value token) {
  auto last = std::make_shared<std::atomic<std::int64_t>>(-1);
  return [outbox = std::move(outbox), token = std::move(token), last](json::object lsp) {
    const json::object& value = lsp["params"].as_object()["value"].as_object();
    const json::value* percentage = value.if_contains("percentage");
    if (!percentage) return;  // end
    const std::int64_t progress = percentage->to_number<std::int64_t>();
    if (progress <= last->load()) return;
    last->store(progress);
    json::object params{{"progressToken", token}, {"progress", progress}, {"total", 100}};
    if (const json::value* message = value.if_contains("message")) {
      params["message"] = *message;
    } else if (const json::value* title = value.if_contains("title")) {
      params["message"] = *title;
    }
    if (auto out = outbox.lock()) {
      out->send(protocol::make_notification("notifications/progress", std::move(params)),
                Framing::kNdjson);
    }
  };
}

}  // namespace

McpSession::McpSession(std::shared_ptr<const McpTools> tools, McpOptions options, Sink sink)
    : tools_(std::move(tools)),
      options_(std::move(options)),
      logger_(options_.logger ? options_.logger : protocol::make_null_logger()),
      outbox_(std::make_shared<protocol::Outbox>(std::move(sink), logger_)),
      cancels_(std::make_shared<protocol::CancelRegistry>()),
      reader_(options_.max_line_bytes) {}

McpSession::~McpSession() { close(); }

void McpSession::close() {
  cancels_->cancel_all();
  outbox_->close();
}

void McpSession::feed(std::string_view bytes) {
  reader_.feed(bytes);
  while (auto event = reader_.next()) {
    if (auto* line = std::get_if<std::string>(&*event)) {
      handle_line(*line);
    } else {
      const auto max = std::get<McpLineTooLong>(*event).max_bytes;
      logger_->error("mcp: a message over " + std::to_string(max) + " bytes skipped");
      fail(nullptr, protocol::kInvalidRequest,
           "message longer than " + std::to_string(max) + " bytes, skipped");
    }
  }
}

void McpSession::finish_input() {
  reader_.finish();
  feed({});
}

void McpSession::reply(const json::value& id, json::value result) {
  outbox_->send(protocol::make_result(id, std::move(result)), Framing::kNdjson);
}

void McpSession::fail(const json::value& id, int code, std::string message) {
  outbox_->send(
      protocol::make_error(id, protocol::RpcError{code, std::move(message), std::nullopt}),
      Framing::kNdjson);
}

void McpSession::handle_line(const std::string& line) {
  if (logger_->enabled(protocol::LogLevel::kVerbose)) logger_->verbose("<<< " + line);
  protocol::ParsedPayload parsed = protocol::parse_payload(line);
  if (parsed.batch) {
    // MCP dropped JSON-RPC batches in 2025-06-18; both revisions we speak forbid them.
    fail(nullptr, protocol::kInvalidRequest, "batches are not supported by MCP");
    return;
  }
  protocol::Message& message = parsed.messages.front();
  if (auto* request = std::get_if<protocol::Request>(&message)) {
    handle_request(*request);
  } else if (auto* notification = std::get_if<protocol::Notification>(&message)) {
    handle_notification(*notification);
  } else if (auto* invalid = std::get_if<protocol::InvalidMessage>(&message)) {
    outbox_->send(protocol::make_error(invalid->id, invalid->error), Framing::kNdjson);
  }  // a response: we send no requests, so there is nothing to match it with
}

void McpSession::handle_request(const protocol::Request& request) {
  logger_->info("<-- " + request.method + "(" + protocol::describe_id(request.id) + ")");
  if (request.method == "ping") return reply(request.id, json::object{});
  if (request.method == "initialize") return initialize(request);
  if (!initialized_) {
    return fail(request.id, protocol::kServerNotInitialized, "server not initialized");
  }
  if (request.method == "tools/list") return list_tools(request);
  if (request.method == "tools/call") return call_tool(request);
  fail(request.id, protocol::kMethodNotFound, "unknown method: " + request.method);
}

void McpSession::initialize(const protocol::Request& request) {
  if (initialized_) {
    return fail(request.id, protocol::kInvalidRequest, "initialize was already received");
  }
  const json::object* params = request.params.if_object();
  const json::value* asked = params ? params->if_contains("protocolVersion") : nullptr;
  if (!asked || !asked->is_string()) {
    return fail(request.id, protocol::kInvalidParams, "params.protocolVersion: expected string");
  }
  // The client's version if we speak it, else our latest: the client decides
  // whether it can go on with that.
  std::string version = kMcpProtocolVersions[0];
  for (const char* known : kMcpProtocolVersions) {
    if (asked->as_string() == known) version = known;
  }
  initialized_ = true;
  logger_->info("mcp: protocol " + version + " (client asked " + std::string(asked->as_string()) +
                ")");
  reply(request.id, json::object{{"protocolVersion", version},
                                 {"capabilities",
                                  json::object{{"tools", json::object{{"listChanged", false}}}}},
                                 {"serverInfo", json::object{{"name", "heapleakd"},
                                                             {"title", "heapleak"},
                                                             {"version", options_.server_version}}},
                                 {"instructions", kInstructions}});
}

void McpSession::list_tools(const protocol::Request& request) {
  const json::array& all = tools_->definitions();
  std::size_t first = 0;
  const json::object* params = request.params.if_object();
  if (const json::value* cursor = params ? params->if_contains("cursor") : nullptr) {
    // Our cursors are the index of the next tool, as a string: opaque to clients.
    const std::string text = cursor->is_string() ? std::string(cursor->as_string()) : "";
    char* end = nullptr;
    first = std::strtoul(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || first > all.size()) {
      return fail(request.id, protocol::kInvalidParams, "params.cursor: not a cursor we gave");
    }
  }
  const std::size_t size = options_.tools_page_size == 0 ? all.size() : options_.tools_page_size;
  const std::size_t last = std::min(all.size(), first + size);
  json::object result{{"tools", json::array(all.begin() + static_cast<std::ptrdiff_t>(first),
                                            all.begin() + static_cast<std::ptrdiff_t>(last))}};
  if (last < all.size()) result["nextCursor"] = std::to_string(last);
  reply(request.id, std::move(result));
}

void McpSession::call_tool(const protocol::Request& request) {
  const json::object* params = request.params.if_object();
  const json::value* name = params ? params->if_contains("name") : nullptr;
  if (!name || !name->is_string()) {
    return fail(request.id, protocol::kInvalidParams, "params.name: expected string");
  }
  if (!tools_->has(name->as_string())) {
    return fail(request.id, protocol::kInvalidParams,
                "unknown tool: " + std::string(name->as_string()) + " (tools/list has them all)");
  }
  McpToolCall call;
  call.id = request.id;
  if (const json::value* arguments = params->if_contains("arguments");
      arguments && !arguments->is_null()) {
    if (!arguments->is_object()) {
      return fail(request.id, protocol::kInvalidParams, "params.arguments: expected object");
    }
    call.arguments = arguments->as_object();
  }
  auto [ticket, stop] = cancels_->enter(request.id);
  call.stop = stop;
  if (auto token = progress_token(*params)) {
    call.progress = protocol::Progress(*token, std::string(name->as_string()),
                                       mcp_progress(outbox_, *token), options_.progress);
  }
  // Exactly one answer; none after notifications/cancelled (MCP: the
  // receiver of a cancellation should not respond).
  auto answered = std::make_shared<std::atomic<bool>>(false);
  auto done = [outbox = std::weak_ptr<protocol::Outbox>(outbox_),
               cancels = std::weak_ptr<protocol::CancelRegistry>(cancels_), ticket = ticket,
               id = request.id, stop = stop, answered](json::object result) {
    if (answered->exchange(true)) return;
    if (auto registry = cancels.lock()) registry->leave(ticket);
    if (stop.stop_requested()) return;
    if (auto out = outbox.lock()) {
      out->send(protocol::make_result(id, std::move(result)), Framing::kNdjson);
    }
  };
  try {
    tools_->call(name->as_string(), std::move(call), done);
  } catch (const std::exception& e) {
    done(mcp_tool_error(std::string("Error: internal error: ") + e.what()));
  }
}

void McpSession::handle_notification(const protocol::Notification& notification) {
  logger_->info("<-- " + notification.method);
  if (notification.method == "notifications/cancelled") {
    const json::object* params = notification.params.if_object();
    const json::value* id = params ? params->if_contains("requestId") : nullptr;
    if (!id || !(id->is_number() || id->is_string())) {
      logger_->error("notifications/cancelled without a usable requestId ignored");
    } else if (!cancels_->cancel(*id)) {
      logger_->verbose("notifications/cancelled for " + protocol::describe_id(*id) +
                       ": not in flight");
    }
  }
  // notifications/initialized needs nothing; others are optional by definition.
}

SessionFactory mcp_sessions(std::shared_ptr<const McpTools> tools, McpOptions options) {
  return [tools = std::move(tools), options = std::move(options)](ServedSession::Sink sink,
                                                                  std::function<void()>) {
    return std::make_unique<McpSession>(tools, options, std::move(sink));
  };
}

}  // namespace heapleak::daemon
