// Session with handlers that answer from worker threads: exactly-once
// replies, cancellation (-32800), progress order, close() during work.
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "capture_logger.h"
#include "fake_client.h"
#include "protocol/session.h"

using namespace heapleak::protocol;
using heapleak::protocol::testing::FakeClient;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

// Runs jobs on detached-at-end threads the test joins.
struct Workers {
  std::vector<std::thread> threads;
  ~Workers() { join(); }
  void run(std::function<void()> job) { threads.emplace_back(std::move(job)); }
  void join() {
    for (auto& t : threads) {
      if (t.joinable()) t.join();
    }
  }
};

std::int64_t code(const json::value& response) {
  return response.at("error").at("code").as_int64();
}

std::string kind(const json::value& message) {
  return std::string(message.at("params").at("value").at("kind").as_string());
}

}  // namespace

TEST_CASE("async replies from workers reach the client once each", "[session][async]") {
  Workers workers;
  auto binder = std::make_shared<Binder>();
  binder->add_async<json::value>("work", [&](json::value params, RequestContext, Reply reply) {
    workers.run([params, reply] {
      reply.result(params.at("n"));
      reply.result(json::value("again"));  // ignored
    });
  });
  FakeClient client(binder);
  client.initialize();
  constexpr int kRequests = 200;
  for (int i = 0; i < kRequests; ++i) client.request("work", json::object{{"n", i}});
  REQUIRE(client.wait_for(kRequests));
  workers.join();
  auto replies = client.take();
  CHECK(replies.size() == kRequests);
  std::set<std::int64_t> ids;
  for (auto& r : replies) {
    ids.insert(r.at("id").as_int64());
    CHECK(r.at("result").as_int64() + 2 == r.at("id").as_int64());  // ids start at 2
  }
  CHECK(ids.size() == kRequests);
  CHECK(client.session().in_flight() == 0);
}

TEST_CASE("a handler that drops its reply answers -32603", "[session][async]") {
  auto binder = std::make_shared<Binder>();
  binder->add_async<NoParams>("forget", [](NoParams, RequestContext, Reply) {});
  binder->add_raw("throwAfterReply", [](const json::value&, const RequestContext&, Reply reply) {
    reply.result(json::value(1));
    throw std::runtime_error("after reply");
  });
  binder->add_raw("throw", [](const json::value&, const RequestContext&, Reply) {
    throw std::runtime_error("kaboom");
  });
  auto logger = std::make_shared<heapleak::protocol::testing::CaptureLogger>();
  SessionOptions options;
  options.logger = logger;
  FakeClient client(binder, options);
  client.initialize();

  client.request("forget");
  auto dropped = client.take_one();
  CHECK(code(dropped) == kInternalError);
  CHECK(dropped.at("error").at("message") == json::value("handler never replied"));

  client.request("throwAfterReply");
  auto first = client.take_one();  // exactly one message: the result
  CHECK(first.at("result") == json::value(1));
  CHECK(logger->contains("second reply to throwAfterReply"));

  client.request("throw");
  auto thrown = client.take_one();
  CHECK(code(thrown) == kInternalError);
  CHECK_THAT(std::string(thrown.at("error").at("message").as_string()), Catch::Contains("kaboom"));
}

TEST_CASE("$/cancelRequest stops a running request, answered -32800 once", "[session][cancel]") {
  Workers workers;
  std::mutex mutex;
  std::condition_variable_any cv;
  bool started = false;
  auto binder = std::make_shared<Binder>();
  binder->add_async<NoParams>("slow", [&](NoParams, RequestContext context, Reply reply) {
    workers.run([&, context, reply] {
      std::unique_lock lock(mutex);
      started = true;
      cv.notify_all();
      // Waits until cancelled (or 5 s, so a bug fails instead of hanging).
      cv.wait_for(lock, context.stop, 5s, [] { return false; });
      if (context.cancelled()) {
        reply.cancelled();
      } else {
        reply.result(json::value("finished"));
      }
      reply.cancelled();  // a second answer is ignored
    });
  });
  FakeClient client(binder);
  client.initialize();
  auto id = client.request("slow");
  {
    std::unique_lock lock(mutex);
    REQUIRE(cv.wait_for(lock, 5s, [&] { return started; }));
  }
  CHECK(client.session().in_flight() == 1);
  client.notify("$/cancelRequest", json::object{{"id", id}});
  REQUIRE(client.wait_for(1));
  workers.join();
  auto replies = client.take();
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].at("id") == json::value(id));
  CHECK(code(replies[0]) == kRequestCancelled);
  CHECK(client.session().in_flight() == 0);

  // Cancelling something already answered, or unknown, changes nothing.
  client.notify("$/cancelRequest", json::object{{"id", id}});
  client.notify("$/cancelRequest", json::object{{"id", "nope"}});
  client.notify("$/cancelRequest", json::object{});
  CHECK(client.take().empty());
}

TEST_CASE("a domain error after cancel is still answered -32800", "[session][cancel]") {
  std::optional<Reply> saved;
  auto binder = std::make_shared<Binder>();
  binder->add_raw("hold", [&](const json::value&, const RequestContext&, Reply reply) {
    saved.emplace(reply);
  });
  FakeClient client(binder);
  client.initialize();
  auto id = client.request("hold", json::object{{"workDoneToken", "t"}});
  client.notify("$/cancelRequest", json::object{{"id", id}});
  saved->error(domain_error("fileNotFound", "gone"));
  saved.reset();
  auto reply = client.take_one();
  CHECK(code(reply) == kRequestCancelled);
}

TEST_CASE("progress: begin, reports, end, then the reply", "[session][progress]") {
  std::chrono::milliseconds elapsed{0};
  Workers workers;
  auto binder = std::make_shared<Binder>();
  binder->add_async<NoParams>("load", [&](NoParams, RequestContext context, Reply reply) {
    workers.run([&elapsed, context, reply] {
      const auto started = std::chrono::steady_clock::now();
      context.progress.begin("Loading heap");
      for (unsigned p = 0; p <= 100; p += 5) {
        context.progress.report(p, std::to_string(p) + "%");
        std::this_thread::sleep_for(12ms);
      }
      elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - started);
      reply.result(json::value("loaded"));  // the reply sends end first
    });
  });
  FakeClient client(binder);
  client.initialize();
  auto id = client.request("load", json::object{{"workDoneToken", "tok-1"}});
  REQUIRE(client.wait_for(1));
  workers.join();
  auto messages = client.take();
  REQUIRE(messages.size() >= 4);
  CHECK(kind(messages.front()) == "begin");
  CHECK(messages.front().at("params").at("token") == json::value("tok-1"));
  CHECK(kind(messages[messages.size() - 2]) == "end");
  CHECK(messages.back().at("id") == json::value(id));
  CHECK(messages.back().at("result") == json::value("loaded"));
  std::int64_t last = -1;
  const std::size_t reports = messages.size() - 3;
  for (std::size_t i = 1; i + 2 < messages.size(); ++i) {
    CHECK(kind(messages[i]) == "report");
    const auto pct = messages[i].at("params").at("value").at("percentage").as_int64();
    CHECK(pct >= last);
    last = pct;
  }
  // 21 reports over >= 250 ms: the limit (one per 100 ms) keeps a few.
  CHECK(reports >= 1);
  CHECK(reports <= static_cast<std::size_t>(elapsed.count() / 100 + 1));
}

TEST_CASE("no workDoneToken, no progress", "[session][progress]") {
  auto binder = std::make_shared<Binder>();
  binder->add<NoParams>("quick", [](const NoParams&, const RequestContext& context) {
    CHECK_FALSE(context.progress.active());
    context.progress.begin("x");
    return json::value(1);
  });
  FakeClient client(binder);
  client.initialize();
  client.request("quick", json::object{});
  CHECK(client.take_one().at("result") == json::value(1));
}

TEST_CASE("a cancelled load ends its progress before the -32800", "[session][progress][cancel]") {
  std::optional<Reply> saved;
  std::optional<RequestContext> saved_context;
  auto binder = std::make_shared<Binder>();
  binder->add_raw("load", [&](const json::value&, const RequestContext& context, Reply reply) {
    context.progress.begin("Loading");
    saved.emplace(reply);
    saved_context.emplace(context);
  });
  FakeClient client(binder);
  client.initialize();
  auto id = client.request("load", json::object{{"workDoneToken", 5}});
  client.notify("$/cancelRequest", json::object{{"id", id}});
  REQUIRE(saved_context->cancelled());
  saved->cancelled();
  auto messages = client.take();
  REQUIRE(messages.size() == 3);
  CHECK(kind(messages[0]) == "begin");
  CHECK(kind(messages[1]) == "end");
  CHECK(code(messages[2]) == kRequestCancelled);
}

TEST_CASE("batched async replies wait for the slowest", "[session][batch][async]") {
  Workers workers;
  auto binder = std::make_shared<Binder>();
  binder->add_async<json::value>("sleep", [&](json::value params, RequestContext, Reply reply) {
    const auto ms = params.at("ms").as_int64();
    workers.run([ms, reply] {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      reply.result(json::value(ms));
    });
  });
  FakeClient client(binder);
  client.initialize();
  client.send(json::parse(R"([{"jsonrpc":"2.0","id":"a","method":"sleep","params":{"ms":30}},
                              {"jsonrpc":"2.0","id":"b","method":"sleep","params":{"ms":1}}])"));
  REQUIRE(client.wait_for(1));
  workers.join();
  auto reply = client.take_one();
  REQUIRE(reply.is_array());
  CHECK(reply.as_array().size() == 2);
}

TEST_CASE("after close, late replies never reach the sink", "[session][async]") {
  Workers workers;
  std::optional<Reply> saved;
  std::stop_token seen_stop;
  auto binder = std::make_shared<Binder>();
  binder->add_raw("hold", [&](const json::value&, const RequestContext& context, Reply reply) {
    saved.emplace(reply);
    seen_stop = context.stop;
  });
  FakeClient client(binder);
  client.initialize();
  client.request("hold");
  const std::size_t before = client.frame_count();
  client.session().close();
  CHECK(seen_stop.stop_requested());  // closing cancels in-flight work
  workers.run([&] {
    saved->result(json::value(1));
    saved.reset();
  });
  workers.join();
  CHECK(client.frame_count() == before);
}
