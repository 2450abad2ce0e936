// heapleakd's MCP session (daemon/mcp/mcp_session.h) in process, over the real
// method table run inline (--sync pools): version negotiation, tools/list
// paging with cursors, a tool call on the public fixture with progress,
// isError results, cancellation, and the tool catalog matching the tools.
#include "daemon/mcp/mcp_session.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "daemon/mcp/mcp_catalog.h"
#include "daemon/method_table.h"

using namespace heapleak;
using namespace heapleak::daemon;
namespace json = boost::json;

namespace {

struct Harness {
  HeapStore store{0};
  WorkerPool loads{0};
  WorkerPool queries{0};
  const HeapCache cache{{false, {}, 0}};  // off: these tests parse every load
  DaemonContext ctx{store, loads, queries, protocol::make_null_logger(), [] {}, cache};
  std::shared_ptr<protocol::Binder> binder = std::make_shared<protocol::Binder>();
  std::vector<std::string> frames;
  std::unique_ptr<McpSession> session;

  explicit Harness(std::size_t page_size = 0) {
    register_all_methods(*binder, ctx);
    McpOptions options;
    options.server_version = "test";
    options.tools_page_size = page_size;
    options.progress.min_interval = std::chrono::milliseconds(0);
    session = std::make_unique<McpSession>(std::make_shared<McpTools>(binder, nullptr), options,
                                           [this](std::string frame) { frames.push_back(frame); });
  }

  // Sends one message; returns every message written since, parsed.
  std::vector<json::object> send(const json::object& message) {
    frames.clear();
    session->feed(json::serialize(message) + "\n");
    std::vector<json::object> out;
    for (const std::string& frame : frames) {
      REQUIRE(frame.back() == '\n');
      REQUIRE(frame.find('\n') == frame.size() - 1);  // one line per message
      out.push_back(json::parse(frame).as_object());
    }
    return out;
  }

  json::object request(int id, std::string method, json::object params = {}) {
    auto out = send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    REQUIRE(!out.empty());
    REQUIRE(out.back().at("id") == id);
    return out.back();
  }

  void initialize(std::string version = "2025-11-25") {
    auto reply = request(1, "initialize", {{"protocolVersion", version}});
    REQUIRE(reply.contains("result"));
  }
};

std::string fixture(const char* name) {
  return std::string(HEAPLEAK_TEST_DATA_DIR) + "/rbheap-3dump/" + name;
}

}  // namespace

TEST_CASE("mcp: initialize negotiates the protocol version", "[daemon][mcp]") {
  for (auto [asked, answered] :
       {std::pair{"2025-11-25", "2025-11-25"}, std::pair{"2025-06-18", "2025-06-18"},
        std::pair{"2024-11-05", "2025-11-25"}}) {
    Harness h;
    auto reply = h.request(1, "initialize", {{"protocolVersion", asked}});
    const auto& result = reply.at("result").as_object();
    CHECK(result.at("protocolVersion") == answered);
    CHECK(result.at("capabilities") == json::parse(R"({"tools":{"listChanged":false}})"));
    CHECK(result.at("serverInfo").at("name") == "heapleakd");
    CHECK(result.at("serverInfo").at("version") == "test");
  }
  Harness h;
  auto missing = h.request(1, "initialize", {});
  CHECK(missing.at("error").at("code") == -32602);
  CHECK(h.request(2, "tools/list").at("error").at("code") == -32002);
  CHECK(h.request(3, "ping").at("result") == json::object{});
}

TEST_CASE("mcp: tools/list pages with an opaque cursor", "[daemon][mcp]") {
  Harness h(4);
  h.initialize();
  std::vector<std::string> names;
  json::object params;
  for (int page = 0; page < 10; ++page) {
    auto result = h.request(10 + page, "tools/list", params).at("result").as_object();
    for (const auto& tool : result.at("tools").as_array())
      names.emplace_back(tool.at("name").as_string());
    if (!result.contains("nextCursor")) break;
    params = {{"cursor", result.at("nextCursor")}};
  }
  CHECK(names.size() == mcp_tool_definitions().size());
  CHECK(names.front() == "load_dump");
  CHECK(h.request(30, "tools/list", {{"cursor", "99"}}).at("error").at("code") == -32602);
}

TEST_CASE("mcp: every tool in the catalog has a schema and a handler", "[daemon][mcp]") {
  Harness h;
  McpTools tools(h.binder, nullptr);
  CHECK(tools.definitions().size() == 11);
  for (const auto& value : tools.definitions()) {
    const auto& tool = value.as_object();
    INFO(tool.at("name").as_string());
    CHECK(tools.has(tool.at("name").as_string()));
    CHECK(tool.at("inputSchema").at("type") == "object");
    CHECK(tool.at("outputSchema").at("type") == "object");
    CHECK(tool.at("description").as_string().size() > 40);
    // No "@piece" left unspliced anywhere.
    CHECK(json::serialize(tool).find("\"@") == std::string::npos);
  }
  CHECK_FALSE(tools.has("loadHeap"));
}

TEST_CASE("mcp: load_dump reports progress, then text and structured content", "[daemon][mcp]") {
  Harness h;
  h.initialize();
  auto out = h.send({{"jsonrpc", "2.0"},
                     {"id", 5},
                     {"method", "tools/call"},
                     {"params",
                      {{"name", "load_dump"},
                       {"arguments", {{"path", fixture("heap2.jsonl.gz")}, {"name", "B"}}},
                       {"_meta", {{"progressToken", "t"}}}}}});
  REQUIRE(out.size() >= 2);
  double last = -1;
  for (std::size_t k = 0; k + 1 < out.size(); ++k) {
    CHECK(out[k].at("method") == "notifications/progress");
    const auto& params = out[k].at("params").as_object();
    CHECK(params.at("progressToken") == "t");
    CHECK(params.at("progress").to_number<double>() > last);  // MCP: always rising
    last = params.at("progress").to_number<double>();
  }
  const auto& result = out.back().at("result").as_object();
  CHECK_FALSE(result.contains("isError"));
  CHECK(result.at("structuredContent").at("heap") == "h1");
  CHECK(result.at("structuredContent").at("objects") == 17620);
  const std::string text(result.at("content").at(0).at("text").as_string());
  CHECK(text.rfind("Loaded ", 0) == 0);
  CHECK(text.find("as heap h1 (name \"B\"): 17,620 objects") != std::string::npos);
  CHECK(h.store.list().size() == 1);  // the daemon's own store
}

TEST_CASE("mcp: errors a model can act on are isError results", "[daemon][mcp]") {
  Harness h;
  h.initialize();
  auto call = [&](int id, std::string name, json::object arguments) {
    return h.request(id, "tools/call", {{"name", name}, {"arguments", arguments}})
        .at("result")
        .as_object();
  };
  auto missing = call(2, "load_dump", {{"path", fixture("nope.json")}});
  CHECK(missing.at("isError") == true);
  CHECK_THAT(std::string(missing.at("content").at(0).at("text").as_string()),
             Catch::StartsWith("Error: fileNotFound: ") && Catch::Contains("nope.json"));
  auto heap = call(3, "path_to_root", {{"heap", "h9"}, {"address", "0x1"}});
  CHECK_THAT(std::string(heap.at("content").at(0).at("text").as_string()),
             Catch::StartsWith("Error: unknownHeap: ") && Catch::Contains("list_heaps"));
  auto offset = call(4, "top_retainers", {{"heap", "h1"}, {"offset", "x"}});
  CHECK(offset.at("content").at(0).at("text") ==
        "Error: arguments.offset: expected non-negative integer");
  auto unknown = h.request(5, "tools/call", {{"name", "nope"}});
  CHECK(unknown.at("error").at("code") == -32602);
}

TEST_CASE("mcp: notifications get no reply", "[daemon][mcp]") {
  Harness h;
  h.initialize();
  // Cancelling a request that is not in flight (a load really cancelled is
  // tests/transcripts/mcp_cancel.test: it needs the load pool's thread).
  CHECK(h.send({{"jsonrpc", "2.0"},
                {"method", "notifications/cancelled"},
                {"params", {{"requestId", 77}, {"reason", "test"}}}})
            .empty());
  CHECK(h.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).empty());
  CHECK(h.session->in_flight() == 0);
}
