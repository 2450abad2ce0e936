// The HTML report's builder (results/report_html.h, report_cards.h,
// report_data.h) from hand-built explain JSON: a hostile class name stays
// data (no markup, no closing tag, no raw bidi override anywhere in the
// page), the data is embedded once, the CSP allows exactly the embedded
// script and style, and the cards say what `heapleak explain` says.
#include "results/report_html.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>
#include <string>

#include "results/report_assets.h"
#include "results/report_cards.h"
#include "results/report_data.h"
#include "results/text/render.h"
#include "results/text/text_doc.h"

namespace {

using namespace heapleak::results;
namespace json = boost::json;

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

const std::string kImg = "<img src=x onerror=alert(1)>";
const std::string kBidi = "\xE2\x80\xAE";  // U+202E RIGHT-TO-LEFT OVERRIDE
const std::string kCloser = "</script><script>alert(2)</script>";

// explain's document with one leak row held by a class named `klass`, a
// second row, and one noise row: the fields results/explain_json writes.
json::object explain_doc(const std::string& klass) {
  json::object doc = json::parse(R"({
    "leaks": [
      {"key": "Hash in KLASS", "signature": "af304803e3746d9e",
       "holder": {"address": "0x7f00000010", "type": "HASH", "class": "Hash", "name": "Hash"},
       "reach": {"kind": "class", "name": "KLASS", "root": "vm"},
       "growth": {"field": "size", "baseline": 300, "target": 600, "later": 900},
       "count": 2700, "memsize": 172800, "retained": 172800,
       "objects": [{"key": "KLASS", "name": "KLASS", "count": 300, "memsize": 24000,
                    "sites": [{"site": "app/user.rb:21", "count": 300}]}],
       "pathNames": ["ROOT vm", "Object", "KLASS", "Hash"],
       "samples": ["0x7f00000020"]},
      {"key": "Array in Log", "signature": "0123456789abcdef",
       "growth": {"field": "length", "baseline": 1, "target": 2, "later": 3},
       "count": 10, "memsize": 400, "retained": 400, "objects": []}
    ],
    "noise": [{"key": "IMEMO:ment", "count": 1, "memsize": 680, "retained": 1400,
               "reason": "vmInternal", "why": "VM internals"}],
    "leakCount": 2, "noiseCount": 1, "total": {"count": 2713, "memsize": 174080},
    "files": {"baseline": "A.json", "target": "B.json", "later": "C.json"},
    "warnings": [], "groupBy": "class"
  })")
                         .as_object();
  // The hostile name put in as a JSON string, whatever it holds.
  std::string text = json::serialize(doc);
  std::string quoted = json::serialize(json::value(klass));
  quoted = quoted.substr(1, quoted.size() - 2);
  for (std::size_t at = text.find("KLASS"); at != std::string::npos; at = text.find("KLASS", at))
    text.replace(at, 5, quoted), at += quoted.size();
  return json::parse(text).as_object();
}

std::string page_for(const std::string& klass) {
  const json::object data = report_data(explain_doc(klass), {{"/tmp/A.json", "", false, 10, true}},
                                        json::array{nullptr, nullptr}, "0.1.0");
  return report_html(data, "heapleak report: " + klass);
}

// The text between the first `open` after `from` and the next `close`.
std::string between(const std::string& text, const std::string& open, const std::string& close,
                    std::size_t from = 0) {
  const std::size_t start = text.find(open, from);
  if (start == std::string::npos) return "";
  const std::size_t end = text.find(close, start + open.size());
  return text.substr(start + open.size(), end - start - open.size());
}

}  // namespace

TEST_CASE("json_for_script escapes what could end the element, and parses back the same",
          "[report]") {
  const json::value value{{"a", "</script><!--&" + kBidi + "\xE2\x80\xA8 ok"}, {"n", 3}};
  const std::string text = json_for_script(value);
  CHECK(text.find('<') == std::string::npos);
  CHECK(text.find('>') == std::string::npos);
  CHECK(text.find('&') == std::string::npos);
  CHECK(text.find(kBidi) == std::string::npos);
  CHECK(text.find("\xE2\x80\xA8") == std::string::npos);
  CHECK(text.find("\\u003c/script\\u003e") != std::string::npos);
  CHECK(text.find("\\u202e") != std::string::npos);
  CHECK(json::parse(text) == value);
}

TEST_CASE("csp_hash_source writes a SHA-256 as CSP's base64 source", "[report]") {
  // SHA-256 of the empty string.
  CHECK(csp_hash_source("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") ==
        "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
}

TEST_CASE("a hostile class name is data: no markup, no closing tag, no raw bidi override",
          "[report]") {
  const std::string page = page_for(kImg + kBidi + "Cache" + kCloser);
  CHECK(page.find(kImg) == std::string::npos);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find(kBidi) == std::string::npos);
  CHECK(page.find("alert(2)</script>") == std::string::npos);
  // Two scripts close: the data and the drawing script, nothing else.
  CHECK(occurrences(page, "</script>") == 2);
  CHECK(occurrences(page, "<script") == 2);
  // In the data, the name is there, escaped; the title shows it as text.
  CHECK(page.find("\\u003cimg src=x onerror=alert(1)\\u003e\\u202eCache") != std::string::npos);
  CHECK(between(page, "<title>", "</title>").find("&lt;img src=x onerror=alert(1)&gt;\\u{202E}") !=
        std::string::npos);
  // The embedded data parses back to the name as the dump wrote it.
  const json::value data = json::parse(
      between(page, "<script type=\"application/json\" id=\"heapleak-data\">", "</script>"));
  CHECK(data.at("explain").at("leaks").at(0).at("reach").at("name").as_string() ==
        kImg + kBidi + "Cache" + kCloser);
  // The cards' words show the override escaped, as the terminal does.
  const std::string head = std::string(data.at("cards").at("leaks").at(0).at(0).as_string());
  CHECK(head == "1. Hash in " + kImg + "\\u{202E}Cache" + kCloser +
                    ": 2,700 objects, 168.8 KiB, retaining 168.8 KiB");
}

TEST_CASE("the data is embedded once, the script and style are the embedded assets", "[report]") {
  const std::string page = page_for("UserCache");
  CHECK(occurrences(page, "id=\"heapleak-data\"") == 1);
  // Each row's signature is in explain's document only: the page holds it once.
  CHECK(occurrences(page, "af304803e3746d9e") == 1);
  CHECK(occurrences(page, "0123456789abcdef") == 1);
  // The script and style in the page are the bytes whose hashes the CSP names.
  CHECK(between(page, "<script>", "</script>") == std::string(kReportScript));
  CHECK(between(page, "<style>", "</style>") == std::string(kReportStyle));
  CHECK(kReportScriptSha256.size() == 64);
  CHECK(kReportStyleSha256.size() == 64);
}

TEST_CASE("the Content-Security-Policy allows nothing from outside the file", "[report]") {
  const std::string page = page_for("UserCache");
  const std::string csp =
      between(page, "<meta http-equiv=\"Content-Security-Policy\" content=\"", "\"");
  CHECK(csp == "default-src 'none'; script-src " + csp_hash_source(kReportScriptSha256) +
                   "; style-src " + csp_hash_source(kReportStyleSha256) +
                   "; img-src data:; base-uri 'none'; form-action 'none'");
  // It comes before anything it governs.
  CHECK(page.find("Content-Security-Policy") < page.find("<style>"));
  // No URL but the SVG namespace and d3's licence comment.
  CHECK(occurrences(page, "http://") == occurrences(page, "http://www.w3.org/2000/svg"));
  CHECK(occurrences(page, "https://") == occurrences(page, "https://d3js.org/d3-hierarchy/ v"));
  CHECK(page.find("src=\"") == std::string::npos);
}

TEST_CASE("the cards are explain's text, cut per row", "[report]") {
  const json::object doc = explain_doc("UserCache");
  const json::object cards = report_cards(doc);
  const std::string text = heapleak::text::plain(heapleak::text::explain_text(doc));
  CHECK(text.find(std::string(cards.at("head").as_string())) == 0);
  const json::array& leaks = cards.at("leaks").as_array();
  REQUIRE(leaks.size() == 2);
  CHECK(leaks[0].as_array().at(0).as_string() ==
        "1. Hash in UserCache: 2,700 objects, 168.8 KiB, retaining 168.8 KiB");
  CHECK(leaks[0].as_array().at(1).as_string() ==
        "   holder: 0x7f00000010 Hash (size 300 -> 600 -> 900)");
  CHECK(leaks[1].as_array().at(0).as_string() ==
        "2. Array in Log: 10 objects, 400 B, retaining 400 B");
  // Every card line is a line of the text, in order.
  std::size_t at = 0;
  for (const auto& row : leaks) {
    for (const auto& line : row.as_array()) {
      at = text.find(std::string(line.as_string()) + "\n", at);
      CHECK(at != std::string::npos);
    }
  }
  const json::array& noise = cards.at("noise").as_array();
  REQUIRE(noise.size() == 1);
  CHECK(noise[0].as_array().at(1).as_string() == "   vmInternal: VM internals");
}
