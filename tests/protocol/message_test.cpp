// parse_payload / parse_message: the JSON-RPC 2.0 envelope rules, as a
// conformance table (json-rpc-cxx style), plus the outgoing builders.
#include "protocol/message.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <string>

using namespace heapleak::protocol;
namespace json = boost::json;

namespace {
// The error code the entry answers with, or 0 when it is a valid message.
int code_of(const Message& message) {
  if (auto* invalid = std::get_if<InvalidMessage>(&message)) return invalid->error.code;
  return 0;
}
}  // namespace

TEST_CASE("invalid envelopes answer the right code", "[message]") {
  struct Row {
    const char* payload;
    int code;
    const char* id;  // serialized id expected in the answer
  };
  const Row rows[] = {
      {"", kParseError, "null"},
      {"{", kParseError, "null"},
      {R"({"jsonrpc":"2.0","method":"a","id":1)", kParseError, "null"},
      {"[]", kInvalidRequest, "null"},
      {"1", kInvalidRequest, "null"},
      {R"("text")", kInvalidRequest, "null"},
      {R"({"method":"a","id":1})", kInvalidRequest, "1"},
      {R"({"jsonrpc":"1.0","method":"a","id":1})", kInvalidRequest, "1"},
      {R"({"jsonrpc":2.0,"method":"a","id":"x"})", kInvalidRequest, "\"x\""},
      {R"({"jsonrpc":"2.0","method":"a","id":{}})", kInvalidRequest, "null"},
      {R"({"jsonrpc":"2.0","method":"a","id":[1]})", kInvalidRequest, "null"},
      {R"({"jsonrpc":"2.0","method":"a","id":true})", kInvalidRequest, "null"},
      {R"({"jsonrpc":"2.0","method":1,"id":1})", kInvalidRequest, "1"},
      {R"({"jsonrpc":"2.0","method":"a","params":"x","id":1})", kInvalidRequest, "1"},
      {R"({"jsonrpc":"2.0","method":"a","params":3,"id":1})", kInvalidRequest, "1"},
      {R"({"jsonrpc":"2.0","method":"a","params":true})", kInvalidRequest, "null"},
      {R"({"jsonrpc":"2.0","id":1})", kInvalidRequest, "1"},
      {R"({"jsonrpc":"2.0"})", kInvalidRequest, "null"},
  };
  for (const Row& row : rows) {
    INFO(row.payload);
    ParsedPayload parsed = parse_payload(row.payload);
    CHECK_FALSE(parsed.batch);
    REQUIRE(parsed.messages.size() == 1);
    CHECK(code_of(parsed.messages[0]) == row.code);
    if (auto* invalid = std::get_if<InvalidMessage>(&parsed.messages[0])) {
      CHECK(json::serialize(invalid->id) == row.id);
    }
  }
}

TEST_CASE("valid requests and notifications", "[message]") {
  SECTION("number id, object params") {
    auto parsed = parse_payload(R"({"jsonrpc":"2.0","id":7,"method":"stats","params":{"a":1}})");
    auto& request = std::get<Request>(parsed.messages.at(0));
    CHECK(request.id == json::value(7));
    CHECK(request.method == "stats");
    CHECK(request.params.at("a") == json::value(1));
  }
  SECTION("string id, array params") {
    auto parsed = parse_payload(R"({"jsonrpc":"2.0","id":"q-1","method":"x","params":[1,2]})");
    auto& request = std::get<Request>(parsed.messages.at(0));
    CHECK(request.id == json::value("q-1"));
    CHECK(request.params.is_array());
  }
  SECTION("null id is still a request; absent or null params read as null") {
    auto parsed = parse_payload(R"({"jsonrpc":"2.0","id":null,"method":"x","params":null})");
    auto& request = std::get<Request>(parsed.messages.at(0));
    CHECK(request.id.is_null());
    CHECK(request.params.is_null());
  }
  SECTION("big ids are kept exactly") {
    auto parsed = parse_payload(R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"x"})");
    CHECK(json::serialize(std::get<Request>(parsed.messages.at(0)).id) == "18446744073709551615");
  }
  SECTION("notification") {
    auto parsed = parse_payload(R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
    CHECK(std::get<Notification>(parsed.messages.at(0)).method == "initialized");
  }
  SECTION("response from the peer") {
    auto parsed = parse_payload(R"({"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m"}})");
    auto& response = std::get<Response>(parsed.messages.at(0));
    REQUIRE(response.error);
    CHECK(response.error->code == -1);
  }
}

TEST_CASE("batches keep one entry per element, valid or not", "[message]") {
  auto parsed = parse_payload(
      R"([{"jsonrpc":"2.0","id":1,"method":"a"}, 1, {"jsonrpc":"2.0","method":"n"},
          {"jsonrpc":"1.0","id":2,"method":"b"}])");
  CHECK(parsed.batch);
  REQUIRE(parsed.messages.size() == 4);
  CHECK(std::holds_alternative<Request>(parsed.messages[0]));
  CHECK(code_of(parsed.messages[1]) == kInvalidRequest);
  CHECK(std::holds_alternative<Notification>(parsed.messages[2]));
  CHECK(code_of(parsed.messages[3]) == kInvalidRequest);
}

TEST_CASE("deep nesting is a parse error, not a crash", "[message]") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto parsed = parse_payload(deep);
  REQUIRE(parsed.messages.size() == 1);
  CHECK(code_of(parsed.messages[0]) == kParseError);
}

TEST_CASE("invalid UTF-8 is a parse error", "[message]") {
  auto parsed = parse_payload("{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}");
  CHECK(code_of(parsed.messages.at(0)) == kParseError);
}

TEST_CASE("outgoing builders", "[message]") {
  CHECK(json::serialize(make_result("a", nullptr)) ==
        R"({"jsonrpc":"2.0","id":"a","result":null})");
  CHECK(json::serialize(make_error(1, RpcError{kMethodNotFound, "nope", std::nullopt})) ==
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}})");
  CHECK(json::serialize(make_notification("$/progress", json::object{{"token", 1}})) ==
        R"({"jsonrpc":"2.0","method":"$/progress","params":{"token":1}})");
  CHECK(json::serialize(make_notification("exit", nullptr)) ==
        R"({"jsonrpc":"2.0","method":"exit"})");
}

TEST_CASE("domain errors carry data.reason", "[message][error]") {
  RpcError error = domain_error("fileNotFound", "no such file: /x", {{"path", "/x"}});
  CHECK(error.code == kDomainError);
  CHECK(error.code == -32803);
  auto object = to_json(error);
  CHECK(object.at("data").at("reason") == json::value("fileNotFound"));
  CHECK(object.at("data").at("path") == json::value("/x"));
  CHECK(object.at("message") == json::value("no such file: /x"));
}

TEST_CASE("error codes have their PROTOCOL.md values", "[error_codes]") {
  CHECK(kParseError == -32700);
  CHECK(kInvalidRequest == -32600);
  CHECK(kMethodNotFound == -32601);
  CHECK(kInvalidParams == -32602);
  CHECK(kInternalError == -32603);
  CHECK(kServerNotInitialized == -32002);
  CHECK(kRequestCancelled == -32800);
  CHECK(kDomainError == -32803);
}
