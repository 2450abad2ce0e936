#include "core/reports/dot_graph.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "core/reports/retainer_report.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

std::shared_ptr<const Heap> leaky_heap() {
  return load_text(join_lines({
      root_line("global_tbl", {"0x10"}),
      class_line("0x10", "Leaky", {"0x20"}),
      object_line({"0x20", "ARRAY", "", {"0x103", "0x101", "0x102"}}),
      object_line({"0x101", "STRING", "", {}, R"("file":"leak.rb", "line":4)"}),
      object_line({"0x102", "STRING", "", {}, R"("file":"leak.rb", "line":4)"}),
      object_line({"0x103", "STRING", "", {}, R"("file":"leak.rb", "line":4)"}),
  }));
}

}  // namespace

TEST_CASE("dot in the seed's style: rankdir=RL, samples blue, labelled", "[dot_graph]") {
  auto heap = leaky_heap();
  auto report = explain_retention(*heap, {{0x102, 0x101}});
  REQUIRE(report);
  const std::string& dot = report->dot;
  CHECK_THAT(dot, Catch::StartsWith("# heapleak root"));
  CHECK_THAT(dot, Catch::Contains("digraph leak {"));
  CHECK_THAT(dot, Catch::Contains("rankdir=RL"));
  CHECK_THAT(dot,
             Catch::Contains(
                 "\"0x101\" [color=blue, fontcolor=blue, label=\"0x101\\nSTRING\\nleak.rb:4\"]"));
  CHECK_THAT(dot, Catch::Contains("\"0x20\" [color=red, penwidth=2"));
  CHECK_THAT(dot, Catch::Contains("\"0x20\" -> \"0x101\";"));
  CHECK_THAT(dot, Catch::Contains("\"0x10\" -> \"0x20\";"));  // the retainer's root path
  CHECK_THAT(dot, Catch::Contains("\"ROOT:global_tbl\" -> \"0x10\";"));
  CHECK_THAT(dot, Catch::Contains("CLASS:Leaky"));
  CHECK(dot.find("0x103") == std::string::npos);  // not a sample, not on a path
}

TEST_CASE("node order is stable whatever the sample order", "[dot_graph]") {
  auto heap = leaky_heap();
  auto a = explain_retention(*heap, {{0x101, 0x102, 0x103}});
  auto b = explain_retention(*heap, {{0x103, 0x101, 0x102}});
  REQUIRE(a);
  REQUIRE(b);
  auto strip_comments = [](const std::string& dot) { return dot.substr(dot.find("digraph")); };
  CHECK(strip_comments(a->dot) == strip_comments(b->dot));
}

TEST_CASE("labels escape quotes and backslashes", "[dot_graph]") {
  auto heap = load_text(join_lines({
      class_line("0x10", "Weird\\\"Name"),
      object_line({"0x20", "ARRAY", "", {"0x101"}}),
      object_line({"0x101", "OBJECT", "0x10"}),
  }));
  auto report = explain_retention(*heap, {{0x101}});
  REQUIRE(report);
  CHECK_THAT(report->dot, Catch::Contains(R"(label="0x101\nWeird\"Name")"));
}

TEST_CASE("labels show control characters and XML's noncharacters, never write them",
          "[dot_graph]") {
  // Graphviz copies label bytes into its SVG: ESC, BEL or U+FFFF there make
  // the SVG ill-formed XML.
  auto heap = load_text(join_lines({
      class_line("0x10", "Evil\\u001b[31m\\u0007\\uffffName\\u0001"),
      object_line({"0x20", "ARRAY", "", {"0x101"}}),
      object_line({"0x101", "OBJECT", "0x10"}),
  }));
  auto report = explain_retention(*heap, {{0x101}});
  REQUIRE(report);
  const std::string& dot = report->dot;
  CHECK(std::none_of(dot.begin(), dot.end(), [](char c) {
    return (static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f;
  }));
  CHECK(dot.find("\xEF\xBF\xBF") == std::string::npos);
  CHECK_THAT(dot, Catch::Contains(R"(Evil\\x1b[31m\\x07\\uFFFFName\\x01)"));
}

TEST_CASE("unknown addresses are reported; none known is an error", "[dot_graph]") {
  auto heap = leaky_heap();
  auto some = explain_retention(*heap, {{0x101, 0xdead}});
  REQUIRE(some);
  CHECK(some->unknown == std::vector<Address>{0xdead});
  auto none = explain_retention(*heap, {{0xdead}});
  REQUIRE_FALSE(none);
  CHECK(none.error().reason == ErrorReason::kUnknownAddress);
  CHECK_THAT(none.error().message, Catch::Contains("0xdead"));
}
