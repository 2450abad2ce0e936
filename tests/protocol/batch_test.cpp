// BatchCollector and Outbox: one array per batch, nothing after close.
#include "protocol/batch.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace heapleak::protocol;
namespace json = boost::json;

TEST_CASE("a batch is sent once, as one array, after its last reply", "[batch]") {
  std::vector<std::string> frames;
  auto outbox = std::make_shared<Outbox>([&](std::string f) { frames.push_back(f); }, nullptr);
  BatchCollector batch(outbox, Framing::kNdjson);
  batch.expect();
  batch.expect();
  batch.add(json::object{{"id", 1}});
  batch.seal();
  CHECK(frames.empty());
  batch.add(json::object{{"id", 2}});
  REQUIRE(frames.size() == 1);
  CHECK(frames[0] == "[{\"id\":1},{\"id\":2}]\n");
}

TEST_CASE("a batch of notifications sends nothing", "[batch]") {
  std::vector<std::string> frames;
  auto outbox = std::make_shared<Outbox>([&](std::string f) { frames.push_back(f); }, nullptr);
  BatchCollector batch(outbox, Framing::kContentLength);
  batch.seal();
  CHECK(frames.empty());
}

TEST_CASE("a closed outbox never calls its sink", "[outbox]") {
  int calls = 0;
  Outbox outbox([&](std::string) { ++calls; }, nullptr);
  outbox.send(json::value(1), Framing::kContentLength);
  outbox.close();
  outbox.send(json::value(2), Framing::kContentLength);
  CHECK(calls == 1);
  CHECK(outbox.closed());
}
