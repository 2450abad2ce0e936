#include "core/heap/object_key.h"

#include <catch2/catch.hpp>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

TEST_CASE("keys follow the seed's naming", "[object_key]") {
  auto heap = load_text(join_lines({
      class_line("0x10", "User"),
      object_line({"0x11", "CLASS"}),  // anonymous class
      object_line({"0x12", "MODULE", "", {}, R"("name":"Greeting")"}),
      object_line({"0x100", "OBJECT", "0x10"}),
      object_line({"0x101", "OBJECT", "0x11"}),
      object_line({"0x102", "OBJECT"}),
      object_line({"0x103", "DATA", "", {}, R"("struct":"mutex")"}),
      object_line({"0x104", "IMEMO", "", {}, R"("imemo_type":"callcache")"}),
      object_line({"0x105", "STRING", "0x10", {}, R"("file":"a.rb", "line":7, "generation":3)"}),
  }));
  CHECK(object_key(*heap, index_of(*heap, "0x10")) == "CLASS:User");
  CHECK(object_key(*heap, index_of(*heap, "0x11")) == "CLASS:(anonymous)");
  CHECK(object_key(*heap, index_of(*heap, "0x12")) == "MODULE:Greeting");
  CHECK(object_key(*heap, index_of(*heap, "0x100")) == "User");
  CHECK(object_key(*heap, index_of(*heap, "0x101")) == "#<Class:0x11>");
  CHECK(object_key(*heap, index_of(*heap, "0x102")) == "OBJECT");
  CHECK(object_key(*heap, index_of(*heap, "0x103")) == "DATA:mutex");
  CHECK(object_key(*heap, index_of(*heap, "0x104")) == "IMEMO:callcache");
  CHECK(object_key(*heap, index_of(*heap, "0x105")) == "STRING");
  CHECK(group_key(*heap, index_of(*heap, "0x105"), GroupBy::kSite) == "a.rb:7");
  CHECK(group_key(*heap, index_of(*heap, "0x105"), GroupBy::kGeneration) == "generation 3");
  CHECK(group_key(*heap, index_of(*heap, "0x100"), GroupBy::kSite) == "(no allocation site)");
  CHECK(parse_group_by("site") == GroupBy::kSite);
  CHECK_FALSE(parse_group_by("colour"));
}
