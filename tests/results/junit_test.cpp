#include "results/junit.h"

#include <catch2/catch.hpp>

#include "tests/results/gate_rows.h"

using namespace heapleak;
using namespace heapleak::results;
using namespace heapleak::test;

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("junit: xml_escape escapes markup and drops what XML 1.0 forbids") {
  CHECK(xml_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;");
  CHECK(xml_escape(std::string("x\x01y\tz\n", 7)) == "xy\tz\n");
  CHECK(xml_escape("Quote ü") == "Quote ü");
  // Noncharacters XML forbids (U+FFFE, U+FFFF) are dropped; bytes that are
  // not UTF-8 become U+FFFD; what XML allows past the BMP stays.
  CHECK(xml_escape("a\xEF\xBF\xBE"
                   "b\xEF\xBF\xBF"
                   "c") == "abc");
  CHECK(xml_escape("a\xFF"
                   "b\xC3") ==
        "a\xEF\xBF\xBD"
        "b\xEF\xBF\xBD");
  CHECK(xml_escape("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  CHECK(xml_escape("\xF0\x9F\x98\x80 \xEF\xBF\xBD") == "\xF0\x9F\x98\x80 \xEF\xBF\xBD");
}

TEST_CASE("junit: one testcase per leak row, skipped noise, and the budget case") {
  LeakClusters clusters;
  clusters.leaks.push_back(
      leak_row("Hash in <Cache> & \"Co\"", "aaaaaaaaaaaaaaaa", 3000, {{"User", 30, 1200, {}}}));
  clusters.leaks.push_back(
      leak_row("Array in Store", "bbbbbbbbbbbbbbbb", 1000, {{"String", 20, 800, {}}}));
  clusters.noise.push_back(noise_row("IMEMO:ment", "cccccccccccccccc", NoiseReason::kVmInternal));
  LeakBaseline baseline;
  baseline.leaks = {{"bbbbbbbbbbbbbbbb", "Array in Store", 20, 1000},
                    {"dddddddddddddddd", "Array in Gone", 1, 40}};
  const std::string xml = junit_xml(clusters, judge_leaks(clusters, &baseline, {}));

  CHECK(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
  CHECK(count_of(xml, "<testsuite ") == 1);
  CHECK(count_of(xml, "<testcase ") == 4);
  CHECK(count_of(xml, "<failure ") == 2);  // the new row and the budget case
  CHECK(count_of(xml, "<skipped ") == 1);
  CHECK_THAT(xml, Catch::Contains("tests=\"4\" failures=\"2\" errors=\"0\" skipped=\"1\""));
  CHECK_THAT(xml, Catch::Contains("name=\"Hash in &lt;Cache&gt; &amp; &quot;Co&quot; "
                                  "[aaaaaaaaaaaaaaaa]\""));
  CHECK_THAT(xml, Catch::Contains("type=\"newLeak\""));
  CHECK_THAT(xml, Catch::Contains("name=\"within budget\""));
  CHECK_THAT(xml, Catch::Contains("fixed: Array in Gone [dddddddddddddddd] is no longer seen"));
  CHECK_THAT(xml, Catch::Contains("probably not a leak (vmInternal)"));
  CHECK(xml.find("<Cache>") == std::string::npos);

  baseline.leaks.push_back({"aaaaaaaaaaaaaaaa", "", 30, 3000});
  std::sort(baseline.leaks.begin(), baseline.leaks.end(),
            [](const auto& x, const auto& y) { return x.signature < y.signature; });
  const std::string passing = junit_xml(clusters, judge_leaks(clusters, &baseline, {}));
  CHECK(count_of(passing, "<failure ") == 0);
  CHECK_THAT(passing, Catch::Contains("tests=\"4\" failures=\"0\""));
}
