// read_value / FieldReader: every failure names the field path.
#include "protocol/params.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

using namespace heapleak::protocol;
namespace json = boost::json;

namespace {

struct Range {
  std::uint32_t from = 0;
  std::optional<std::uint32_t> to;
};

Range tag_invoke(json::value_to_tag<Range>, const json::value& value) {
  FieldReader r(value);
  return Range{r.required<std::uint32_t>("from"), r.optional<std::uint32_t>("to")};
}

struct QueryParams {
  std::string heap;
  std::vector<std::string> addresses;
  std::optional<std::string> format;
  std::uint32_t limit = 0;
  std::vector<Range> ranges;
};

QueryParams tag_invoke(json::value_to_tag<QueryParams>, const json::value& value) {
  FieldReader r(value);
  QueryParams p;
  p.heap = r.required<std::string>("heap");
  p.addresses = r.optional<std::vector<std::string>>("addresses", {});
  p.format = r.optional<std::string>("format");
  p.limit = r.optional<std::uint32_t>("limit", 50);
  p.ranges = r.optional<std::vector<Range>>("ranges", {});
  return p;
}

// The -32602 message decoding `params` would give, or "" on success.
std::string decode_error(const char* params) {
  try {
    read_value<QueryParams>(json::parse(params));
    return "";
  } catch (const ParamsError& e) {
    return e.message();
  }
}

}  // namespace

TEST_CASE("params decode into plain structs with defaults", "[params]") {
  auto p = read_value<QueryParams>(json::parse(R"({"heap":"h1","addresses":["0x1","0x2"]})"));
  CHECK(p.heap == "h1");
  CHECK(p.addresses == std::vector<std::string>{"0x1", "0x2"});
  CHECK_FALSE(p.format);
  CHECK(p.limit == 50);
  auto q = read_value<QueryParams>(json::parse(R"({"heap":"h","format":null,"limit":3.0})"));
  CHECK_FALSE(q.format);
  CHECK(q.limit == 3);
}

TEST_CASE("decoding errors name the field path", "[params]") {
  CHECK(decode_error(R"({})") == "params.heap: missing");
  CHECK(decode_error("null") == "params.heap: missing");
  CHECK(decode_error("[1]") == "params: expected object");
  CHECK(decode_error(R"({"heap":3})") == "params.heap: expected string");
  CHECK(decode_error(R"({"heap":"h","addresses":"0x1"})") == "params.addresses: expected array");
  CHECK(decode_error(R"({"heap":"h","addresses":["0x1","0x2",7]})") ==
        "params.addresses[2]: expected string");
  CHECK(decode_error(R"({"heap":"h","limit":-1})") ==
        "params.limit: expected non-negative integer");
  CHECK(decode_error(R"({"heap":"h","limit":1.5})") == "params.limit: expected integer");
  CHECK(decode_error(R"({"heap":"h","limit":5000000000})") == "params.limit: out of range");
  CHECK(decode_error(R"({"heap":"h","ranges":[{"from":1},{"to":2}]})") ==
        "params.ranges[1].from: missing");
  CHECK(decode_error(R"({"heap":"h","ranges":[{"from":1,"to":"x"}]})") ==
        "params.ranges[0].to: expected integer");
  CHECK(decode_error(R"({"heap":"h","addresses":["0x1"],"format":"dot"})").empty());
}

TEST_CASE("scalar readers", "[params]") {
  CHECK(read_value<bool>(json::value(true)));
  CHECK_THROWS_AS(read_value<bool>(json::value(1)), ParamsError);
  CHECK(read_value<std::int8_t>(json::value(-128)) == -128);
  CHECK_THROWS_AS(read_value<std::int8_t>(json::value(128)), ParamsError);
  CHECK(read_value<std::uint64_t>(json::parse("18446744073709551615")) == UINT64_MAX);
  CHECK_THROWS_AS(read_value<std::int64_t>(json::parse("18446744073709551615")), ParamsError);
  CHECK(read_value<double>(json::value(2)) == 2.0);
  CHECK(read_value<json::value>(json::value("x")) == json::value("x"));
  read_value<NoParams>(json::parse(R"({"anything":1})"));
}
