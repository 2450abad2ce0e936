// MCP inspect_object's text cuts a long record on a character boundary:
// cut inside a multi-byte character, the reply line was invalid UTF-8 and
// strict clients rejected the whole message.
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <string>

#include "daemon/mcp/mcp_text.h"
#include "results/text/utf8_text.h"

namespace json = boost::json;

namespace {

bool valid_utf8(const std::string& text) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t begin = at;
    if (heapleak::text::next_code_point(text, at) == 0xFFFD && at - begin == 1) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("mcp: an object's record is cut on a character boundary", "[mcp]") {
  // Every offset of the cut within a 2-, 3- and 4-byte character.
  for (const std::string character : {"é", "€", "😀"}) {
    for (std::size_t lead = 0; lead < 4; ++lead) {
      std::string value(lead, 'x');
      for (int k = 0; k < 400; ++k) value += character;
      json::object object{{"address", "0x10"},
                          {"type", "STRING"},
                          {"memsize", 40},
                          {"referrersCount", 0},
                          {"referencesCount", 0},
                          {"class", "String"},
                          {"record", json::object{{"address", "0x10"}, {"value", value}}}};
      const std::string text = heapleak::daemon::mcp_object_text(json::object{{"object", object}});
      INFO(character << " after " << lead);
      CHECK(text.find("...") != std::string::npos);
      CHECK(valid_utf8(text));
      CHECK(valid_utf8(json::serialize(json::value(text))));
    }
  }
}
