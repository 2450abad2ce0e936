// Progress: begin/report/end rules, monotonic percentage, rate limit.
#include "protocol/progress.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <vector>

using namespace heapleak::protocol;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {
struct Recorder {
  std::vector<json::object> values;
  std::chrono::steady_clock::time_point now{};

  Progress make() {
    ProgressOptions options;
    options.clock = [this] { return now; };
    return Progress(
        json::value(7), "loadHeap",
        [this](json::object n) {
          CHECK(n.at("method") == json::value("$/progress"));
          CHECK(n.at("params").at("token") == json::value(7));
          values.push_back(n.at("params").at("value").as_object());
        },
        options);
  }
  std::string kind(std::size_t i) const { return std::string(values.at(i).at("kind").as_string()); }
  std::int64_t percentage(std::size_t i) const {
    return values.at(i).at("percentage").to_number<std::int64_t>();
  }
};
}  // namespace

TEST_CASE("an inert progress sends nothing", "[progress]") {
  Progress progress;
  CHECK_FALSE(progress.active());
  progress.begin("x");
  progress.report(10);
  progress.end();
  CHECK_FALSE(progress.begun());
}

TEST_CASE("begin, reports, end in order with LSP fields", "[progress]") {
  Recorder r;
  Progress p = r.make();
  p.begin("Loading heap", "reading");
  r.now += 200ms;
  p.report(10, "10 MB");
  r.now += 200ms;
  p.report(60);
  p.end("done");
  REQUIRE(r.values.size() == 4);
  CHECK(r.kind(0) == "begin");
  CHECK(r.values[0].at("title") == json::value("Loading heap"));
  CHECK(r.values[0].at("cancellable") == json::value(true));
  CHECK(r.kind(1) == "report");
  CHECK(r.percentage(1) == 10);
  CHECK(r.values[1].at("message") == json::value("10 MB"));
  CHECK(r.percentage(2) == 60);
  CHECK(r.kind(3) == "end");
  CHECK(r.values[3].at("message") == json::value("done"));
  p.report(90);
  p.end();
  CHECK(r.values.size() == 4);  // nothing after end
}

TEST_CASE("reports are rate-limited to one per 100 ms", "[progress]") {
  Recorder r;
  Progress p = r.make();
  p.begin("x");
  for (unsigned i = 1; i <= 100; ++i) {
    r.now += 10ms;  // 100 reports over one second
    p.report(i);
  }
  const std::size_t reports = r.values.size() - 1;
  CHECK(reports >= 9);
  CHECK(reports <= 11);
}

TEST_CASE("percentage never falls and stays within 0..100", "[progress]") {
  Recorder r;
  Progress p = r.make();
  p.report(40);  // implicit begin, with the default title
  CHECK(r.kind(0) == "begin");
  CHECK(r.values[0].at("title") == json::value("loadHeap"));
  CHECK(r.percentage(0) == 40);
  for (unsigned value : {20u, 70u, 500u, 0u}) {
    r.now += 1s;
    p.report(value);
  }
  REQUIRE(r.values.size() == 5);
  CHECK(r.percentage(1) == 40);
  CHECK(r.percentage(2) == 70);
  CHECK(r.percentage(3) == 100);
  CHECK(r.percentage(4) == 100);
}

TEST_CASE("end without begin sends nothing", "[progress]") {
  Recorder r;
  Progress p = r.make();
  p.end();
  p.report(50);
  CHECK(r.values.empty());
  CHECK(p.ended());
}

TEST_CASE("parts share one progress: their own span, one begin, the whole's end", "[progress]") {
  Recorder r;
  Progress whole = r.make();
  Progress loads = whole.part(0, 40);
  Progress streams = whole.part(40, 100);
  loads.begin("Loading B.json");
  r.now += 1s;
  loads.report(50);
  r.now += 1s;
  loads.report(100);
  loads.end();  // a part's end: nothing, the whole goes on
  CHECK_FALSE(whole.ended());
  streams.begin("Reading A.json against B.json");  // begun already: the message
  r.now += 1s;
  streams.report(0);
  r.now += 1s;
  streams.report(50);
  streams.end();
  whole.end();
  REQUIRE(r.values.size() == 6);
  CHECK(r.kind(0) == "begin");
  CHECK(r.values[0].at("title") == json::value("Loading B.json"));
  CHECK(r.percentage(1) == 20);
  CHECK(r.percentage(2) == 40);
  CHECK(r.percentage(3) == 40);
  CHECK(r.values[3].at("message") == json::value("Reading A.json against B.json"));
  CHECK(r.percentage(4) == 70);
  CHECK(r.kind(5) == "end");
  // A part of a part spans its share of the part.
  Recorder r2;
  Progress inner = r2.make().part(50, 100).part(0, 50);
  inner.report(100);
  REQUIRE(r2.values.size() == 1);
  CHECK(r2.percentage(0) == 75);
}
