// Binder: typed params for sync/async handlers, -32602 paths, exceptions.
#include "protocol/binder.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

using namespace heapleak::protocol;
namespace json = boost::json;

namespace {

struct LoadParams {
  std::string path;
  std::optional<std::string> name;
};
LoadParams tag_invoke(json::value_to_tag<LoadParams>, const json::value& value) {
  FieldReader r(value);
  return {r.required<std::string>("path"), r.optional<std::string>("name")};
}

json::value load_result(std::string heap, std::uint64_t objects) {
  return json::object{{"heap", std::move(heap)}, {"objects", objects}};
}

// Calls one registered method and returns the response it produced.
struct Harness {
  Binder binder;
  std::vector<json::object> responses;

  json::object call(std::string_view method, json::value params) {
    responses.clear();
    const auto* handler = binder.find_request(method);
    REQUIRE(handler);
    {
      Reply reply(Reply::Target{1,
                                std::string(method),
                                [this](json::object r) { responses.push_back(std::move(r)); },
                                {},
                                {},
                                {},
                                nullptr});
      RequestContext context{1, std::string(method), {}, {}};
      (*handler)(params, context, reply);
    }
    REQUIRE(responses.size() == 1);
    return responses.front();
  }
};

int error_code(const json::object& response) {
  return static_cast<int>(response.at("error").at("code").as_int64());
}
std::string error_message(const json::object& response) {
  return std::string(response.at("error").at("message").as_string());
}

}  // namespace

TEST_CASE("a sync handler gets typed params and returns a JSON result", "[binder]") {
  Harness h;
  h.binder.add<LoadParams>("loadHeap", [](const LoadParams& p, const RequestContext&) {
    return load_result(p.name.value_or("h1") + ":" + p.path, 42);
  });
  auto response = h.call("loadHeap", json::parse(R"({"path":"/tmp/a.json"})"));
  CHECK(response.at("result").at("heap") == json::value("h1:/tmp/a.json"));
  CHECK(response.at("result").at("objects") == json::value(42));
}

TEST_CASE("bad params answer -32602 with the field path", "[binder]") {
  Harness h;
  bool called = false;
  h.binder.add<LoadParams>("loadHeap", [&](const LoadParams&, const RequestContext&) {
    called = true;
    return json::value();
  });
  auto wrong_type = h.call("loadHeap", json::parse(R"({"path":1})"));
  CHECK(error_code(wrong_type) == kInvalidParams);
  CHECK(error_message(wrong_type) == "params.path: expected string");
  auto missing = h.call("loadHeap", nullptr);
  CHECK(error_message(missing) == "params.path: missing");
  auto positional = h.call("loadHeap", json::parse(R"(["/tmp/a"])"));
  CHECK(error_message(positional) == "params: expected object");
  CHECK_FALSE(called);
}

TEST_CASE("handlers answer domain errors, exceptions become errors", "[binder]") {
  Harness h;
  h.binder.add<LoadParams>("result", [](const LoadParams& p, const RequestContext&) {
    if (p.path == "/missing")
      throw RpcException(domain_error("fileNotFound", "no such file: /missing"));
    return load_result("h", 1);
  });
  h.binder.add<NoParams>("throws", [](const NoParams&, const RequestContext&) -> json::value {
    throw std::runtime_error("boom");
  });
  h.binder.add<NoParams>("throwsRpc", [](const NoParams&, const RequestContext&) -> json::value {
    throw RpcException(domain_error("unknownHeap", "no heap h9"));
  });
  h.binder.add<NoParams>("void", [](const NoParams&, const RequestContext&) {});

  auto domain = h.call("result", json::parse(R"({"path":"/missing"})"));
  CHECK(error_code(domain) == kDomainError);
  CHECK(domain.at("error").at("data").at("reason") == json::value("fileNotFound"));
  CHECK(h.call("result", json::parse(R"({"path":"/ok"})")).contains("result"));

  auto internal = h.call("throws", nullptr);
  CHECK(error_code(internal) == kInternalError);
  CHECK_THAT(error_message(internal), Catch::Contains("boom"));
  CHECK(error_code(h.call("throwsRpc", nullptr)) == kDomainError);
  CHECK(h.call("void", nullptr).at("result").is_null());
}

TEST_CASE("an async handler answers through the reply it keeps", "[binder]") {
  Harness h;
  std::optional<Reply> saved;
  h.binder.add_async<LoadParams>("loadHeap", [&](LoadParams p, RequestContext, Reply reply) {
    CHECK(p.path == "/a");
    saved.emplace(std::move(reply));
  });
  const auto* handler = h.binder.find_request("loadHeap");
  REQUIRE(handler);
  {
    Reply reply(Reply::Target{9,
                              "loadHeap",
                              [&](json::object r) { h.responses.push_back(std::move(r)); },
                              {},
                              {},
                              {},
                              nullptr});
    (*handler)(json::parse(R"({"path":"/a"})"), RequestContext{9, "loadHeap", {}, {}}, reply);
  }
  CHECK(h.responses.empty());  // the handler kept the reply
  saved->result(load_result("h2", 7));
  REQUIRE(h.responses.size() == 1);
  CHECK(h.responses[0].at("id") == json::value(9));
  CHECK(h.responses[0].at("result").at("heap") == json::value("h2"));
}

TEST_CASE("the binder refuses lifecycle names and duplicates", "[binder]") {
  Binder binder;
  auto noop = [](const NoParams&, const RequestContext&) {};
  CHECK_THROWS_AS(binder.add<NoParams>("initialize", noop), std::logic_error);
  CHECK_THROWS_AS(binder.add<NoParams>("$/cancelRequest", noop), std::logic_error);
  binder.add<NoParams>("stats", noop);
  CHECK_THROWS_AS(binder.add<NoParams>("stats", noop), std::logic_error);
  CHECK(binder.request_methods() == std::vector<std::string>{"stats"});
  CHECK(binder.find_request("root") == nullptr);
}
