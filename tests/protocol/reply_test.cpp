// Reply: exactly one answer, whatever the handler does with it.
#include "protocol/reply.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "capture_logger.h"

using namespace heapleak::protocol;
namespace json = boost::json;

namespace {
struct Sent {
  std::vector<json::object> responses;
  Reply make(std::stop_token stop = {}, std::shared_ptr<Logger> logger = nullptr,
             Progress progress = {}) {
    return Reply(Reply::Target{json::value("r1"),
                               "loadHeap",
                               [this](json::object r) { responses.push_back(std::move(r)); },
                               std::move(progress),
                               std::move(stop),
                               {},
                               std::move(logger)});
  }
};
}  // namespace

TEST_CASE("a dropped reply answers -32603 handler never replied", "[reply]") {
  Sent sent;
  { Reply reply = sent.make(); }
  REQUIRE(sent.responses.size() == 1);
  CHECK(sent.responses[0].at("id") == json::value("r1"));
  CHECK(sent.responses[0].at("error").at("code") == json::value(kInternalError));
  CHECK(sent.responses[0].at("error").at("message") == json::value("handler never replied"));
}

TEST_CASE("copies share one answer; a second reply is ignored and logged", "[reply]") {
  Sent sent;
  auto logger = std::make_shared<testing::CaptureLogger>();
  {
    Reply reply = sent.make({}, logger);
    Reply copy = reply;
    copy.result(json::value(1));
    reply.result(json::value(2));
    reply.error(internal_error("late"));
    CHECK(reply.replied());
  }
  REQUIRE(sent.responses.size() == 1);
  CHECK(sent.responses[0].at("result") == json::value(1));
  CHECK(logger->contains("second reply to loadHeap(\"r1\") ignored"));
}

TEST_CASE("racing replies from many threads still answer once", "[reply]") {
  Sent sent;
  std::mutex mutex;
  Reply reply(Reply::Target{json::value(5),
                            "x",
                            [&](json::object r) {
                              std::lock_guard lock(mutex);
                              sent.responses.push_back(std::move(r));
                            },
                            {},
                            {},
                            {},
                            nullptr});
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back([reply, i] { reply.result(json::value(i)); });
  for (auto& t : threads) t.join();
  CHECK(sent.responses.size() == 1);
}

TEST_CASE("after a cancel, an error answer becomes -32800; a result stands", "[reply]") {
  Sent sent;
  std::stop_source source;
  {
    Reply reply = sent.make(source.get_token());
    source.request_stop();
    reply.error(domain_error("fileNotFound", "gone"));
  }
  {
    std::stop_source other;
    Reply reply = sent.make(other.get_token());
    other.request_stop();
    reply.result(json::value("loaded anyway"));
  }
  REQUIRE(sent.responses.size() == 2);
  CHECK(sent.responses[0].at("error").at("code") == json::value(kRequestCancelled));
  CHECK(sent.responses[1].at("result") == json::value("loaded anyway"));
}

TEST_CASE("the reply ends progress before it answers", "[reply][progress]") {
  std::vector<std::string> order;
  Progress progress(json::value("tok"), "loadHeap", [&](json::object n) {
    order.push_back(std::string(n.at("params").at("value").at("kind").as_string()));
  });
  Reply reply(Reply::Target{json::value(1),
                            "loadHeap",
                            [&](json::object) { order.push_back("reply"); },
                            progress,
                            {},
                            {},
                            nullptr});
  progress.begin("Loading");
  reply.result(nullptr);
  progress.report(50);  // too late: nothing after end
  CHECK(order == std::vector<std::string>{"begin", "end", "reply"});
}
