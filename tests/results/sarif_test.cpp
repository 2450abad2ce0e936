#include "results/sarif.h"

#include <catch2/catch.hpp>

#include "tests/results/gate_rows.h"

using namespace heapleak;
using namespace heapleak::results;
using namespace heapleak::test;
namespace json = boost::json;

namespace {

const char* kQuote = "aaaaaaaaaaaaaaaa";
const char* kStore = "bbbbbbbbbbbbbbbb";

LeakClusters rows() {
  LeakClusters clusters;
  clusters.leaks.push_back(
      leak_row("Hash in PriceCalculator", kQuote, 1887437,
               {{"PriceCalculator::Quote",
                 3000,
                 120000,
                 {"/src/app/price calc.rb:12", "/gems/x/lib/y.rb:7"}},
                {"String", 100, 4000, {"/src/app/price calc.rb:12", "<internal:kernel>:90"}}}));
  // Untraced: no sites at all.
  clusters.leaks.push_back(leak_row("Array in Store", kStore, 2000, {{"String", 50, 2000, {}}}));
  clusters.noise.push_back(noise_row("IMEMO:ment", "cccccccccccccccc", NoiseReason::kVmInternal));
  clusters.noise.push_back(noise_row("Array in Pool", "dddddddddddddddd", NoiseReason::kBounded));
  return clusters;
}

const json::object& result(const json::object& log, std::size_t k) {
  return log.at("runs").at(0).at("results").at(k).as_object();
}

}  // namespace

TEST_CASE("sarif: split_site") {
  CHECK(split_site("/app/a.rb:12").file == "/app/a.rb");
  CHECK(split_site("/app/a.rb:12").line == 12);
  CHECK(split_site("C:/x.rb:3").file == "C:/x.rb");
  CHECK(split_site("(eval)").line == 0);
  CHECK(split_site("a.rb:").file == "a.rb:");
  CHECK(split_site("a.rb:1x").line == 0);
}

TEST_CASE("sarif: one result per leak row, located at its allocation sites") {
  const LeakClusters clusters = rows();
  LeakBaseline baseline;
  baseline.leaks = {{kStore, "Array in Store", 50, 2000}};
  const GateVerdict verdict = judge_leaks(clusters, &baseline, {});
  const json::object log = sarif_log(clusters, verdict, {"/src", "9.9.9"});

  CHECK(log.at("version") == "2.1.0");
  CHECK(log.at("$schema") == "https://json.schemastore.org/sarif-2.1.0.json");
  const json::object& run = log.at("runs").at(0).as_object();
  CHECK(run.at("tool").at("driver").at("name") == "heapleak");
  CHECK(run.at("tool").at("driver").at("version") == "9.9.9");
  CHECK(run.at("originalUriBaseIds").at("SRCROOT").at("uri") == "file:///src/");
  const json::array& rules = run.at("tool").at("driver").at("rules").as_array();
  REQUIRE(rules.size() == 3);  // the leak rule and one per noise reason present
  CHECK(rules[0].at("id") == "heapleak/leak");
  CHECK(rules[1].at("id") == "heapleak/noise/bounded");
  CHECK(rules[2].at("id") == "heapleak/noise/vmInternal");
  REQUIRE(run.at("results").as_array().size() == 4);

  const json::object& quote = result(log, 0);
  CHECK(quote.at("ruleId") == "heapleak/leak");
  CHECK(quote.at("ruleIndex") == 0);
  CHECK(quote.at("level") == "error");
  CHECK(quote.at("baselineState") == "new");
  CHECK(quote.at("partialFingerprints").at("heapleakSignature/v1") == kQuote);
  CHECK(quote.at("message").at("text").as_string() ==
        "3,000 PriceCalculator::Quote, 100 String (3,100 objects) allocated here are held by "
        "Hash in PriceCalculator: 1.8 MiB retained (new leak: fails the gate)");
  const json::array& locations = quote.at("locations").as_array();
  // Sites merged over classes, most objects first; <internal:...> has no file.
  REQUIRE(locations.size() == 2);
  const json::object& first = locations[0].at("physicalLocation").as_object();
  CHECK(first.at("artifactLocation").at("uri") == "app/price%20calc.rb");
  CHECK(first.at("artifactLocation").at("uriBaseId") == "SRCROOT");
  CHECK(first.at("region").at("startLine") == 12);
  CHECK(locations[0].at("message").at("text") ==
        "3,000 PriceCalculator::Quote, 100 String allocated here");
  const json::object& gem = locations[1].at("physicalLocation").as_object();
  CHECK(gem.at("artifactLocation").at("uri") == "file:///gems/x/lib/y.rb");
  CHECK_FALSE(gem.at("artifactLocation").as_object().contains("uriBaseId"));
  CHECK(quote.at("properties").at("retained") == 1887437);
  CHECK(quote.at("properties").at("count") == 3100);
  CHECK(quote.at("properties").at("holder") == "Hash in PriceCalculator");

  const json::object& store = result(log, 1);
  CHECK(store.at("baselineState") == "unchanged");
  CHECK(store.at("level") == "warning");
  const json::object& where = store.at("locations").at(0).as_object();
  CHECK_FALSE(where.contains("physicalLocation"));
  CHECK(where.at("logicalLocations").at(0).at("name") == "Array in Store");
  CHECK(where.at("logicalLocations").at(0).at("fullyQualifiedName") ==
        "ROOT vm -> Object -> Cache -> Hash");
  CHECK_THAT(std::string(store.at("message").at("text").as_string()),
             Catch::EndsWith("are held by Array in Store: 2.0 KiB retained (in the baseline)"));
  CHECK(store.at("properties").at("baselineRetained") == 2000);

  const json::object& noise = result(log, 2);
  CHECK(noise.at("ruleId") == "heapleak/noise/vmInternal");
  CHECK(noise.at("ruleIndex") == 2);
  CHECK(noise.at("level") == "note");
  CHECK_FALSE(noise.contains("baselineState"));
  CHECK_FALSE(noise.at("locations").at(0).as_object().contains("physicalLocation"));
  CHECK(result(log, 3).at("ruleIndex") == 1);
  CHECK(run.at("properties").at("verdict") == "fail");
}

TEST_CASE("sarif: without a source root every site is absolute; a grown known leak is updated") {
  const LeakClusters clusters = rows();
  LeakBaseline baseline;
  baseline.leaks = {{kQuote, "", 3100, 100000}, {kStore, "", 50, 2000}};
  const GateVerdict verdict = judge_leaks(clusters, &baseline, {});
  const json::object log = sarif_log(clusters, verdict, {"", "1"});
  CHECK_FALSE(log.at("runs").at(0).as_object().contains("originalUriBaseIds"));
  const json::object& quote = result(log, 0);
  CHECK(quote.at("locations").at(0).at("physicalLocation").at("artifactLocation").at("uri") ==
        "file:///src/app/price%20calc.rb");
  CHECK(quote.at("baselineState") == "updated");
  CHECK(quote.at("level") == "warning");
  CHECK_THAT(std::string(quote.at("message").at("text").as_string()),
             Catch::EndsWith("(in the baseline, grew 18.9x)"));
  CHECK(log.at("runs").at(0).at("properties").at("verdict") == "pass");
}

TEST_CASE("sarif: a site with .. never lands outside --source-root") {
  LeakClusters clusters;
  clusters.leaks.push_back(leak_row("Hash in Evil", kQuote, 1000,
                                    {{"String",
                                      10,
                                      1000,
                                      {"/src/app/../../etc/passwd:1", "/src/app/./x/../y.rb:2",
                                       "../../outside.rb:3", "lib/../z.rb:4"}}}));
  const json::object log = sarif_log(clusters, judge_leaks(clusters, nullptr, {}), {"/src/", "1"});
  std::vector<std::pair<std::string, bool>> uris;  // uri, based on SRCROOT
  for (const auto& location : result(log, 0).at("locations").as_array()) {
    const json::object& artifact =
        location.at("physicalLocation").at("artifactLocation").as_object();
    uris.emplace_back(std::string(artifact.at("uri").as_string()), artifact.contains("uriBaseId"));
  }
  REQUIRE_FALSE(uris.empty());
  for (const auto& [uri, based] : uris) {
    INFO(uri);
    if (based) CHECK(uri.find("..") == std::string::npos);
  }
  CHECK(std::count(uris.begin(), uris.end(),
                   std::make_pair(std::string("file:///etc/passwd"), false)) >= 1);
}
