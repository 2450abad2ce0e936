#include "results/leak_baseline.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "tests/results/gate_rows.h"

using namespace heapleak;
using namespace heapleak::results;
using namespace heapleak::test;

namespace {

std::string parse_error(const std::string& text) {
  auto parsed = parse_leak_baseline(text, "base.json");
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error().reason == ErrorReason::kCorruptInput);
  return parsed.error().message;
}

}  // namespace

TEST_CASE("baseline: written sorted, one entry a line, and read back equal") {
  const std::vector<LeakCluster> rows = {
      leak_row("Hash in UserCache", "ffff000011112222", 5000, {{"User", 30, 1200, {}}}),
      leak_row("Array in Leaky", "0123456789abcdef", 2000, {{"String", 50, 2000, {}}}),
      // The same signature again (two holders with the same Ruby names): one entry.
      leak_row("Array in Leaky", "0123456789abcdef", 400, {{"String", 10, 400, {}}}),
  };
  const LeakBaseline baseline = baseline_of(rows);
  REQUIRE(baseline.leaks.size() == 2);
  CHECK(baseline.leaks[0].signature == "0123456789abcdef");
  CHECK(baseline.leaks[0].count == 60);
  CHECK(baseline.leaks[0].retained == 2400);
  CHECK(baseline.leaks[1].key == "Hash in UserCache");

  const std::string text = leak_baseline_text(baseline);
  CHECK(text ==
        "{\n  \"heapleakBaseline\": 1,\n  \"leaks\": [\n"
        "    {\"signature\":\"0123456789abcdef\",\"key\":\"Array in "
        "Leaky\",\"count\":60,\"retained\":2400},\n"
        "    {\"signature\":\"ffff000011112222\",\"key\":\"Hash in "
        "UserCache\",\"count\":30,\"retained\":5000}\n  ]\n}\n");
  auto back = parse_leak_baseline(text, "base.json");
  REQUIRE(back.has_value());
  REQUIRE(back->leaks.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    CHECK(back->leaks[k].signature == baseline.leaks[k].signature);
    CHECK(back->leaks[k].key == baseline.leaks[k].key);
    CHECK(back->leaks[k].count == baseline.leaks[k].count);
    CHECK(back->leaks[k].retained == baseline.leaks[k].retained);
  }
  CHECK(back->find("ffff000011112222") == &back->leaks[1]);
  CHECK(back->find("ffff000011112223") == nullptr);
}

TEST_CASE("baseline: an empty one round-trips; a hand-edited one is sorted on reading") {
  auto empty = parse_leak_baseline(leak_baseline_text(LeakBaseline{}), "e");
  REQUIRE(empty.has_value());
  CHECK(empty->leaks.empty());
  auto unsorted = parse_leak_baseline(
      R"({"heapleakBaseline":1,"leaks":[
          {"signature":"bbbbbbbbbbbbbbbb","count":1,"retained":2},
          {"signature":"aaaaaaaaaaaaaaaa","key":"x","count":3,"retained":4}]})",
      "u");
  REQUIRE(unsorted.has_value());
  CHECK(unsorted->leaks[0].signature == "aaaaaaaaaaaaaaaa");
  CHECK(unsorted->leaks[1].key.empty());
}

TEST_CASE("baseline: a malformed file is a clear error naming what is wrong") {
  CHECK_THAT(parse_error("{\"heapleakBaseline\": 1, \"leaks\": ["),
             Catch::Contains("base.json") && Catch::Contains("invalid JSON"));
  CHECK_THAT(parse_error("[]"), Catch::Contains("expected an object"));
  CHECK_THAT(parse_error("{\"leaks\": []}"), Catch::Contains("no \"heapleakBaseline\" version"));
  CHECK_THAT(parse_error("{\"heapleakBaseline\": 2, \"leaks\": []}"),
             Catch::Contains("version 2") && Catch::Contains("reads version 1"));
  CHECK_THAT(parse_error("{\"heapleakBaseline\": 1}"),
             Catch::Contains("\"leaks\" must be an array"));
  CHECK_THAT(parse_error(R"({"heapleakBaseline":1,"leaks":[3]})"),
             Catch::Contains("leaks[0]: expected an object"));
  CHECK_THAT(
      parse_error(
          R"({"heapleakBaseline":1,"leaks":[{"signature":"ABCDEF0123456789","count":1,"retained":1}]})"),
      Catch::Contains("leaks[0].signature"));
  CHECK_THAT(parse_error(
                 R"({"heapleakBaseline":1,"leaks":[{"signature":"0123","count":1,"retained":1}]})"),
             Catch::Contains("16 lowercase hex digits"));
  CHECK_THAT(
      parse_error(
          R"({"heapleakBaseline":1,"leaks":[{"signature":"0123456789abcdef","count":-1,"retained":1}]})"),
      Catch::Contains("leaks[0].count"));
  CHECK_THAT(
      parse_error(R"({"heapleakBaseline":1,"leaks":[{"signature":"0123456789abcdef","count":1}]})"),
      Catch::Contains("leaks[0].retained"));
  CHECK_THAT(
      parse_error(
          R"({"heapleakBaseline":1,"leaks":[{"signature":"0123456789abcdef","key":7,"count":1,"retained":1}]})"),
      Catch::Contains("leaks[0].key"));
  CHECK_THAT(parse_error(R"({"heapleakBaseline":1,"leaks":[
      {"signature":"0123456789abcdef","count":1,"retained":1},
      {"signature":"0123456789abcdef","count":2,"retained":2}]})"),
             Catch::Contains("appears twice"));
  // Every message says how to make a good one.
  CHECK_THAT(parse_error(""), Catch::Contains("--write-baseline"));
}

TEST_CASE("baseline: reading a missing file, a directory or a real file") {
  auto missing = read_leak_baseline("/nonexistent/heapleak-baseline.json");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().reason == ErrorReason::kFileNotFound);
  CHECK_THAT(missing.error().message, Catch::Contains("/nonexistent/heapleak-baseline.json"));
  auto directory = read_leak_baseline("/");
  REQUIRE_FALSE(directory.has_value());
  CHECK(directory.error().reason == ErrorReason::kNotReadable);

  char path[] = "/tmp/heapleak-baseline-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  {
    std::ofstream out(path);
    out << leak_baseline_text(
        baseline_of({leak_row("Array in Leaky", "0123456789abcdef", 9, {{"String", 1, 9, {}}})}));
  }
  auto read = read_leak_baseline(path);
  std::remove(path);
  REQUIRE(read.has_value());
  REQUIRE(read->leaks.size() == 1);
  CHECK(read->leaks[0].retained == 9);
}
