// explain --format jsonl's rows, from hand-built wire answers: one flat line
// per leak row (never noise), growth per dump from today's {baseline, target,
// later} or an N-dump array, growth per hour from the dump times, and the
// process from the manifests.
#include "results/leak_rows_jsonl.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace heapleak;
using namespace heapleak::results;
namespace json = boost::json;

namespace {

json::object row(const char* signature, json::value growth) {
  json::object out =
      json::parse(R"({"key": "Hash in CacheX", "holder": {"class": "Hash", "type": "HASH"},
    "reach": {"kind": "class", "name": "CacheX", "root": "vm"}, "root": "vm",
    "pathNames": ["ROOT vm", "Object", "CacheX", "Hash"], "count": 200, "memsize": 13120,
    "retained": 14000, "instances": 1,
    "objects": [{"key": "STRING", "count": 120, "sites": [{"site": "a.rb:2", "count": 80},
                                                          {"site": "a.rb:1", "count": 40}]},
                {"key": "Session", "count": 40, "sites": [{"site": "a.rb:1", "count": 40}]}]})")
          .as_object();
  out["signature"] = signature;
  out["growth"] = std::move(growth);
  return out;
}

DumpFacts dump(const char* path, double epoch, std::optional<DumpManifest> manifest = {}) {
  DumpFacts facts;
  facts.path = path;
  facts.dumped_epoch = epoch;
  facts.dumped_at = iso8601_utc(epoch);
  facts.manifest = std::move(manifest);
  facts.time_from_manifest = facts.manifest.has_value();
  return facts;
}

std::vector<json::object> lines_of(const std::string& text) {
  std::vector<json::object> out;
  std::size_t from = 0;
  for (std::size_t end; (end = text.find('\n', from)) != std::string::npos; from = end + 1)
    out.push_back(json::parse(text.substr(from, end - from)).as_object());
  CHECK(from == text.size());  // every line ends in a newline
  return out;
}

}  // namespace

TEST_CASE("one flat row per leak row, never noise, with the dumps' process and times", "[jsonl]") {
  DumpManifest manifest;
  manifest.pid = 4001;
  manifest.hostname = "web-0";
  manifest.started_at = "2026-03-02T07:00:00.00Z";
  const json::value growth =
      json::parse(R"({"field": "size", "baseline": 40, "target": 80, "later": 120})");
  json::object explain{{"leaks", json::array{row("00000000000000aa", growth)}},
                       {"noise", json::array{row("00000000000000bb", growth)}}};
  const std::vector<DumpFacts> dumps{dump("d/a.json", 0, manifest), dump("d/b.json", 600, manifest),
                                     dump("d/c.json", 1200, manifest)};
  const auto rows = lines_of(leak_rows_jsonl(explain, dumps));
  REQUIRE(rows.size() == 1);
  const json::object& r = rows[0];
  CHECK(r.at("signature") == "00000000000000aa");
  CHECK(r.at("key") == "Hash in CacheX");
  CHECK(r.at("rank") == 1);
  CHECK(r.at("holder_class") == "Hash");
  CHECK(r.at("reach_kind") == "class");
  CHECK(r.at("reach") == "CacheX");
  CHECK(r.at("path").as_array().size() == 4);
  CHECK(r.at("growth_field") == "size");
  CHECK(r.at("growth") == json::parse("[40, 80, 120]"));
  CHECK(r.at("growth_per_hour").as_double() == Approx(240.0));  // 80 in 20 minutes
  CHECK(r.at("objects") == 200);
  CHECK(r.at("retained") == 14000);
  CHECK(r.at("sites") == json::parse(R"(["a.rb:1", "a.rb:2"])"));  // 80 each, then by name
  CHECK(r.at("classes") == json::parse(R"([{"class": "STRING", "count": 120},
                                           {"class": "Session", "count": 40}])"));
  CHECK(r.at("series") == "web-0/4001/2026-03-02T07:00:00.00Z");
  CHECK(r.at("pid") == 4001);
  CHECK(r.at("host") == "web-0");
  CHECK(r.at("time_source") == "manifest");
  CHECK(r.at("hours").as_double() == Approx(1.0 / 3));
  CHECK(r.at("dumps") == json::parse(R"(["d/a.json", "d/b.json", "d/c.json"])"));
  CHECK(r.at("dumped_at").as_array()[1] == "1970-01-01T00:10:00.000Z");
}

TEST_CASE("growth: two dumps, N dumps as an array, no holder, no times", "[jsonl]") {
  const std::vector<DumpFacts> two{dump("x/a.json", 0), dump("x/b.json", 1800)};
  json::object explain{
      {"leaks", json::array{row("01", json::parse(R"({"field": "length", "baseline": 5,
                                                     "target": 9, "later": null})"))}}};
  auto r = lines_of(leak_rows_jsonl(explain, two)).at(0);
  CHECK(r.at("growth") == json::parse("[5, 9]"));
  CHECK(r.at("growth_per_hour").as_double() == Approx(8.0));
  CHECK(r.at("pid").is_null());
  CHECK(r.at("series") == "x");
  CHECK(r.at("time_source") == "mtime");

  // explain over N dumps: the row's growthCounts, a count (or null) per dump.
  const std::vector<DumpFacts> four{dump("a", 0), dump("b", 3600), dump("c", 7200),
                                    dump("d", 10800)};
  const auto series_row = [](const char* signature, const char* counts) {
    json::object out =
        row(signature, json::parse(R"({"field": "size", "baseline": 0, "target": 0, "later": 0})"));
    out["growthCounts"] = json::parse(counts);
    return out;
  };
  explain["leaks"] = json::array{series_row("02", "[1, 2, null, 7]"), series_row("03", "[3, 6]"),
                                 series_row("06", "[2, 4, 6, 8]")};
  auto rows = lines_of(leak_rows_jsonl(explain, four));
  CHECK(rows[0].at("growth") == json::parse("[1, 2, null, 7]"));
  CHECK(rows[0].at("growth_per_hour").as_double() == Approx(2.0));
  CHECK(rows[1].at("growth") == json::parse("[3, 6]"));
  CHECK(rows[1].at("growth_per_hour").as_double() == Approx(3.0));
  CHECK(rows[1].at("rank") == 2);
  CHECK(rows[2].at("growth") == json::parse("[2, 4, 6, 8]"));
  CHECK(rows[2].at("growth_field") == "size");

  // No holder: no growth. Unknown times: no rate.
  explain["leaks"] = json::array{row("04", nullptr)};
  r = lines_of(leak_rows_jsonl(explain, two)).at(0);
  CHECK(r.at("growth") == json::array{});
  CHECK(r.at("growth_per_hour").is_null());
  std::vector<DumpFacts> untimed{dump("a", std::numeric_limits<double>::quiet_NaN()),
                                 dump("b", 60)};
  explain["leaks"] = json::array{row("05", json::parse(R"({"baseline": 1, "target": 2})"))};
  r = lines_of(leak_rows_jsonl(explain, untimed)).at(0);
  CHECK(r.at("growth_per_hour").is_null());
  CHECK(r.at("hours").is_null());
}
