// Session driven end to end through the fake client: lifecycle, errors,
// batches, framing round trips. Everything here is synchronous.
#include "protocol/session.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include "capture_logger.h"
#include "fake_client.h"

using namespace heapleak::protocol;
using heapleak::protocol::testing::FakeClient;
namespace json = boost::json;

namespace {

struct EchoParams {
  std::string text;
};
EchoParams tag_invoke(json::value_to_tag<EchoParams>, const json::value& value) {
  FieldReader r(value);
  return {r.required<std::string>("text")};
}

std::shared_ptr<Binder> echo_binder() {
  auto binder = std::make_shared<Binder>();
  binder->add<EchoParams>(
      "echo", [](const EchoParams& p, const RequestContext&) { return json::value(p.text); });
  return binder;
}

std::int64_t code(const json::value& response) {
  return response.at("error").at("code").as_int64();
}

}  // namespace

TEST_CASE("initialize answers serverInfo and the owner's capabilities", "[session]") {
  SessionOptions options;
  options.server_version = "0.1.0";
  options.capabilities = {{"methods", json::array{"loadHeap"}}};
  json::value client_params;
  options.on_initialize = [&](const json::value& params) { client_params = params; };
  FakeClient client(echo_binder(), options);
  CHECK(client.session().state() == SessionState::kUninitialized);

  client.request("initialize", json::object{{"clientInfo", {{"name", "test"}}}});
  auto response = client.take_one();
  CHECK(response.at("result").at("serverInfo").at("name") == json::value("heapleakd"));
  CHECK(response.at("result").at("serverInfo").at("version") == json::value("0.1.0"));
  CHECK(response.at("result").at("capabilities").at("methods").at(0) == json::value("loadHeap"));
  CHECK(client_params.at("clientInfo").at("name") == json::value("test"));
  CHECK(client.session().state() == SessionState::kRunning);
}

TEST_CASE("before initialize: requests -32002, notifications dropped, exit allowed",
          "[session][lifecycle]") {
  auto binder = echo_binder();
  int notified = 0;
  binder->add_raw_notification("heapleak/ping", [&](const json::value&) { ++notified; });
  int exits = 0;
  bool clean = true;
  SessionOptions options;
  options.on_exit = [&](bool c) {
    ++exits;
    clean = c;
  };
  FakeClient client(binder, options);

  client.request("echo", json::object{{"text", "hi"}});
  CHECK(code(client.take_one()) == kServerNotInitialized);
  client.request("shutdown");
  CHECK(code(client.take_one()) == kServerNotInitialized);
  client.notify("heapleak/ping");
  client.notify("initialized");
  CHECK(client.take().empty());
  CHECK(notified == 0);

  client.notify("exit");
  CHECK(exits == 1);
  CHECK_FALSE(clean);
  CHECK(client.session().exit_code() == 1);
  CHECK(client.session().state() == SessionState::kExited);
  client.request("initialize", json::object{});  // nothing answers after exit
  CHECK(client.take().empty());
}

TEST_CASE("the full lifecycle: initialize, work, shutdown, exit 0", "[session][lifecycle]") {
  bool clean = false;
  SessionOptions options;
  options.on_exit = [&](bool c) { clean = c; };
  FakeClient client(echo_binder(), options);
  client.initialize();

  auto id = client.request("echo", json::object{{"text", "hello"}});
  auto reply = client.take_one();
  CHECK(reply.at("id") == json::value(id));
  CHECK(reply.at("result") == json::value("hello"));

  client.request("initialize", json::object{});
  CHECK(code(client.take_one()) == kInvalidRequest);

  client.request("shutdown");
  auto shutdown = client.take_one();
  CHECK(shutdown.at("result").is_null());
  CHECK(client.session().state() == SessionState::kShutdown);

  client.request("echo", json::object{{"text", "late"}});
  CHECK(code(client.take_one()) == kInvalidRequest);
  client.request("shutdown");
  CHECK(code(client.take_one()) == kInvalidRequest);

  client.notify("exit");
  CHECK(clean);
  CHECK(client.session().exit_code() == 0);
}

TEST_CASE("exit without shutdown reports exit code 1", "[session][lifecycle]") {
  FakeClient client(echo_binder());
  client.initialize();
  CHECK_FALSE(client.session().exit_code());
  client.notify("exit");
  CHECK(client.session().exit_code() == 1);
}

TEST_CASE("method and message errors", "[session]") {
  FakeClient client(echo_binder());
  client.initialize();

  client.request("noSuchMethod");
  auto unknown = client.take_one();
  CHECK(code(unknown) == kMethodNotFound);
  CHECK(unknown.at("error").at("message") == json::value("unknown method: noSuchMethod"));

  client.request("$/unknownRequest");
  CHECK(code(client.take_one()) == kMethodNotFound);
  client.notify("$/setTrace", json::object{{"value", "off"}});
  client.notify("someUnknownNotification");
  CHECK(client.take().empty());

  client.request("echo", json::object{{"text", 5}});
  auto bad = client.take_one();
  CHECK(code(bad) == kInvalidParams);
  CHECK(bad.at("error").at("message") == json::value("params.text: expected string"));

  client.send_raw("Content-Length: 5\r\n\r\n{oops");
  auto parse = client.take_one();
  CHECK(code(parse) == kParseError);
  CHECK(parse.at("id").is_null());

  client.send(json::parse(R"({"jsonrpc":"1.0","id":"v","method":"echo"})"));
  auto version = client.take_one();
  CHECK(code(version) == kInvalidRequest);
  CHECK(version.at("id") == json::value("v"));

  // Still serving after all that.
  client.request("echo", json::object{{"text", "alive"}});
  CHECK(client.take_one().at("result") == json::value("alive"));
}

TEST_CASE("ids are echoed exactly", "[session]") {
  FakeClient client(echo_binder());
  client.initialize();
  for (const char* id : {R"("abc")", "0", "-5", "9007199254740993", "18446744073709551615"}) {
    INFO(id);
    client.send(json::parse(
        std::string(R"({"jsonrpc":"2.0","method":"echo","params":{"text":"x"},"id":)") + id + "}"));
    CHECK(json::serialize(client.take_one().at("id")) == id);
  }
}

TEST_CASE("batches are answered as batches", "[session][batch]") {
  FakeClient client(echo_binder());
  client.initialize();

  SECTION("requests and notifications mixed") {
    client.send(json::parse(R"([
      {"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"a"}},
      {"jsonrpc":"2.0","method":"$/setTrace"},
      {"jsonrpc":"2.0","id":2,"method":"nope"},
      {"jsonrpc":"2.0","id":3,"method":"echo","params":{"text":"c"}}])"));
    auto reply = client.take_one();
    REQUIRE(reply.is_array());
    REQUIRE(reply.as_array().size() == 3);
    std::map<std::int64_t, json::value> by_id;
    for (auto& entry : reply.as_array()) by_id[entry.at("id").as_int64()] = entry;
    CHECK(by_id[1].at("result") == json::value("a"));
    CHECK(code(by_id[2]) == kMethodNotFound);
    CHECK(by_id[3].at("result") == json::value("c"));
  }
  SECTION("only notifications: no reply at all") {
    client.send(json::parse(R"([{"jsonrpc":"2.0","method":"initialized"},
                                 {"jsonrpc":"2.0","method":"$/x"}])"));
    CHECK(client.take().empty());
  }
  SECTION("the empty batch gets one -32600, not an array") {
    client.send_raw("[]\n");
    auto reply = client.take_one();
    REQUIRE(reply.is_object());
    CHECK(code(reply) == kInvalidRequest);
    CHECK(reply.at("id").is_null());
  }
  SECTION("a batch of junk gets one error per entry") {
    client.send_raw("[1,2,3]\n");
    auto reply = client.take_one();
    REQUIRE(reply.as_array().size() == 3);
    for (auto& entry : reply.as_array()) CHECK(code(entry) == kInvalidRequest);
  }
}

TEST_CASE("replies use the framing of the request", "[session][framing]") {
  FakeClient client(echo_binder());
  client.initialize();
  client.request("echo", json::object{{"text", "a"}}, Framing::kNdjson);
  client.request("echo", json::object{{"text", "b"}}, Framing::kContentLength);
  client.send_raw(R"({"jsonrpc":"2.0","id":"nd","method":"echo","params":{"text":"c"}})"
                  "\n");
  auto framings = client.framings();
  REQUIRE(framings.size() == 4);
  CHECK(framings[1] == Framing::kNdjson);
  CHECK(framings[2] == Framing::kContentLength);
  CHECK(framings[3] == Framing::kNdjson);
  CHECK(client.frames().back().back() == '\n');
}

TEST_CASE("a whole session fed one byte at a time", "[session][framing]") {
  FakeClient client(echo_binder());
  std::string stream;
  auto add = [&](const std::string& payload, Framing framing) {
    stream += write_frame(payload, framing);
  };
  add(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})", Framing::kContentLength);
  add(R"({"jsonrpc":"2.0","method":"initialized","params":{}})", Framing::kNdjson);
  add(R"({"jsonrpc":"2.0","id":2,"method":"echo","params":{"text":"x"}})", Framing::kContentLength);
  add(R"({"jsonrpc":"2.0","id":3,"method":"shutdown"})", Framing::kNdjson);
  add(R"({"jsonrpc":"2.0","method":"exit"})", Framing::kContentLength);
  client.send_raw(stream, 1);
  auto replies = client.take();
  REQUIRE(replies.size() == 3);
  CHECK(replies[1].at("result") == json::value("x"));
  CHECK(replies[2].at("id") == json::value(3));
  CHECK(client.session().exit_code() == 0);
}

TEST_CASE("framing errors are answered with id null and serving goes on", "[session][framing]") {
  SessionOptions options;
  options.framing.max_message_bytes = 1024;
  auto logger = std::make_shared<heapleak::protocol::testing::CaptureLogger>();
  options.logger = logger;
  FakeClient client(echo_binder(), options);
  client.initialize();

  client.send_raw("this is not a frame\r\n");
  CHECK(code(client.take_one()) == kParseError);

  client.send_raw("Content-Length: 1000000000000000000\r\n\r\n{\"never\":");
  auto too_large = client.take_one();
  CHECK(code(too_large) == kInvalidRequest);
  CHECK(too_large.at("id").is_null());

  client.request("echo", json::object{{"text", "after"}});
  CHECK(client.take_one().at("result") == json::value("after"));

  client.send_raw("Content-Length: 50\r\n\r\n{\"jsonrpc\"");
  client.session().finish_input();
  CHECK(client.take().empty());  // nobody left to answer a truncated frame
  CHECK(logger->contains("input ended inside a frame"));
  CHECK(logger->contains("<-- echo(2)"));
  CHECK(logger->contains("--> reply echo(2)"));
}

TEST_CASE("server notifications go out in the peer's framing", "[session]") {
  FakeClient client(echo_binder());
  client.send_raw(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"
                  "\n");
  client.take();
  client.session().notify("heapleak/heapUnloaded", json::object{{"heap", "h1"}});
  auto note = client.take_one();
  CHECK(note.at("method") == json::value("heapleak/heapUnloaded"));
  CHECK(client.framings().back() == Framing::kNdjson);
}
