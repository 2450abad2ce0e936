// `rpc [FILE|-]`: a scripted session. Reads JSON-RPC messages (one per line or
// Content-Length framed), sends them one at a time, waits for each request's
// reply and prints every response (and, with --notifications, every
// notification) as one JSON line. Initializes first unless the input does.
#include <boost/json.hpp>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "clients/client/commands.h"
#include "clients/client/exit_codes.h"
#include "clients/client/heap_resolver.h"
#include "clients/client/output.h"
#include "protocol/frame_reader.h"
#include "protocol/method_names.h"

namespace heapleak::client {
namespace json = boost::json;

namespace {

std::string read_input(const std::string& source) {
  if (source == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(source, std::ios::binary);
  if (!in) throw ClientError{kExitUsage, "cannot read " + source};
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The payloads of the input, parsed; any framing or JSON error is a usage error.
std::vector<json::value> parse_messages(const std::string& text) {
  protocol::FrameReader reader;
  reader.feed(text);
  reader.finish();
  std::vector<json::value> messages;
  while (auto event = reader.next()) {
    if (auto* error = std::get_if<protocol::FrameError>(&*event)) {
      throw ClientError{kExitUsage, "input message " + std::to_string(messages.size() + 1) + ": " +
                                        error->message};
    }
    boost::system::error_code ec;
    json::value message = json::parse(std::get<protocol::Frame>(*event).payload, ec);
    if (ec || !(message.is_object() || message.is_array())) {
      throw ClientError{kExitUsage, "input message " + std::to_string(messages.size() + 1) +
                                        " is not a JSON-RPC object or batch" +
                                        (ec ? ": " + ec.message() : "")};
    }
    messages.push_back(std::move(message));
  }
  return messages;
}

template <class Visit>
void each_entry(json::value& message, Visit visit) {
  if (message.is_array()) {
    for (auto& entry : message.as_array()) {
      if (entry.is_object()) visit(entry.as_object());
    }
  } else if (message.is_object()) {
    visit(message.as_object());
  }
}

bool is_method(const json::object& entry, std::string_view name) {
  const json::value* method = entry.if_contains("method");
  return method && method->is_string() && method->as_string() == name;
}

// The daemon may run in another directory: make loadHeap's relative paths ours.
void absolutize_paths(json::object& entry) {
  if (!is_method(entry, "loadHeap")) return;
  json::value* params = entry.if_contains("params");
  json::value* path =
      params && params->is_object() ? params->as_object().if_contains("path") : nullptr;
  if (path && path->is_string() && !path->as_string().empty() && path->as_string()[0] != '/') {
    *path = absolute_path(std::string(path->as_string()));
  }
}

}  // namespace

int run_rpc(CommandContext& ctx) {
  const Args& args = ctx.args();
  std::vector<json::value> messages =
      parse_messages(read_input(args.positionals.empty() ? "-" : args.positionals[0]));
  bool initializes = false;
  for (auto& message : messages) {
    each_entry(message,
               [&](json::object& entry) { initializes |= is_method(entry, "initialize"); });
  }
  RpcClient& rpc = ctx.raw_rpc();
  if (!initializes) rpc.initialize();
  const bool show_notifications = args.has("--notifications");
  auto print = [](const json::value& value) { std::cout << json::serialize(value) << std::endl; };

  for (auto& message : messages) {
    std::vector<json::value> pending;
    bool exits = false;
    each_entry(message, [&](json::object& entry) {
      absolutize_paths(entry);
      if (entry.contains("method") && entry.contains("id")) pending.push_back(entry.at("id"));
      exits |= is_method(entry, "exit");
    });
    rpc.send_payload(json::serialize(message));
    if (exits) break;  // the daemon closes this connection (or exits)
    bool cancel_sent = false;
    while (!pending.empty()) {
      json::value incoming;
      if (rpc.receive(incoming) == RpcClient::Wait::kInterrupted) {
        if (cancel_sent)
          throw ClientError{kExitCancelled, "interrupted again: not waiting for the daemon"};
        cancel_sent = true;
        std::cerr << "\nheapleak-client: cancelling " << pending.size()
                  << " request(s) (Ctrl-C again to stop waiting)\n";
        for (const auto& id : pending)
          rpc.notify(protocol::methods::kCancelRequest, json::object{{"id", id}});
        continue;
      }
      each_entry(incoming, [&](json::object& entry) {
        if (entry.contains("method")) {
          if (show_notifications) print(entry);
          return;
        }
        print(entry);
        const json::value id = entry.contains("id") ? entry.at("id") : json::value();
        auto match = std::find(pending.begin(), pending.end(), id);
        // A null id answers a request the daemon could not read: count it against the oldest.
        if (match == pending.end() && id.is_null()) match = pending.begin();
        if (match != pending.end()) pending.erase(match);
      });
    }
    if (cancel_sent) return kExitCancelled;
  }
  return kExitOk;
}

}  // namespace heapleak::client
