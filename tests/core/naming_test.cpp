#include "core/heap/naming.h"

#include <catch2/catch.hpp>

#include "core/heap/naming_runtime.h"
#include "core/heap/object_key.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// Classes as Ruby 3.1 writes them: a singleton class has no name and
// references the object it is attached to, whose `class` it is.
std::string heap_text() {
  return join_lines({
      // UserCache's class is its singleton: the record says so.
      R"({"address":"0x10", "type":"CLASS", "class":"0x11", "name":"UserCache"})",
      object_line({"0x11", "CLASS", "", {"0x10"}, R"("singleton":true)"}),  // #<Class:UserCache>
      object_line({"0x20", "CLASS", "", {}, R"("name":"PriceCalculator::Quote")"}),
      object_line({"0x21", "CLASS"}),  // anonymous, no instances referenced
      class_line("0x22", "StringIO"),
      class_line("0x23", "Thread"),
      class_line("0x24", "Hash"),
      object_line({"0x25", "MODULE"}),
      object_line({"0x26", "CLASS", "", {"0x27", "0x110"}, R"("singleton":true)"}),  // of an object
      class_line("0x27", "Object"),
      object_line({"0x100", "STRUCT", "0x20"}),
      object_line({"0x101", "DATA", "0x22", {}, R"("struct":"strio")"}),
      object_line({"0x102", "DATA", "0x23", {}, R"("struct":"VM/thread")"}),
      object_line({"0x103", "DATA", "", {}, R"("struct":"VM/env")"}),
      object_line({"0x104", "IMEMO", "", {}, R"("imemo_type":"callcache")"}),
      object_line({"0x105", "ARRAY"}),  // hidden: no class
      object_line({"0x106", "HASH", "0x24"}),
      object_line({"0x107", "OBJECT", "0x21"}),
      object_line({"0x110", "OBJECT", "0x26"}),
  });
}

}  // namespace

TEST_CASE("one naming function gives the Ruby-facing name", "[naming]") {
  auto heap = load_text(heap_text());
  auto name = [&](const char* address) { return ruby_name(*heap, index_of(*heap, address)); };
  CHECK(name("0x10") == "UserCache");
  CHECK(name("0x11") == "#<Class:UserCache>");
  CHECK(name("0x20") == "PriceCalculator::Quote");
  CHECK(name("0x21") == "#<Class:0x21>");
  CHECK(name("0x25") == "#<Module:0x25>");
  CHECK(name("0x26") == "#<Class:#<Object:0x110>>");
  CHECK(name("0x100") == "PriceCalculator::Quote");
  CHECK(name("0x101") == "StringIO");
  CHECK(name("0x102") == "Thread");
  CHECK(name("0x103") == "DATA:VM/env");
  CHECK(name("0x104") == "IMEMO:callcache");
  CHECK(name("0x105") == "ARRAY");
  CHECK(name("0x106") == "Hash");
  CHECK(name("0x107") == "#<Class:0x21>");
}

// Ruby 3.1 dumps an anonymous class's temporary path as its name: a
// singleton class of an anonymous object still reads as one, and a row
// names them in words, never by an address (issue 25, defect 8).
TEST_CASE("rows name singleton and anonymous classes in Ruby's words", "[naming]") {
  auto heap = load_text(join_lines({
      R"({"address":"0x10", "type":"CLASS", "class":"0x11", "name":"UserCache"})",
      object_line({"0x11", "CLASS", "", {"0x10"}, R"("singleton":true)"}),
      class_line("0x27", "Object"),
      class_line("0x28", "Item"),
      object_line({"0x26", "CLASS", "", {"0x27", "0x110"}, R"("singleton":true)"}),
      object_line(
          {"0x29", "CLASS", "", {"0x28", "0x111"}, R"("name":"#<Class:0x0000000000000029>")"}),
      object_line({"0x30", "CLASS", "", {}, R"("name":"#<Class:0x0000000000000030>")"}),
      object_line({"0x110", "OBJECT", "0x26"}),
      object_line({"0x111", "OBJECT", "0x29"}),
  }));
  auto label = [&](const char* address) { return class_label(*heap, index_of(*heap, address)); };
  CHECK(label("0x10") == "UserCache");
  CHECK(label("0x11") == "#<Class:UserCache>");
  CHECK(label("0x26") == "singleton class of an Object");
  CHECK(label("0x29") == "singleton class of an Item");
  CHECK(ruby_class_name(*heap, index_of(*heap, "0x29")) == "#<Class:#<Item:0x111>>");
  CHECK(label("0x30") == "anonymous class");
}

TEST_CASE("without references a singleton class has only its address", "[naming]") {
  LoadOptions options;
  options.mode = LoadMode::kIdentityOnly;
  auto heap = load_text(heap_text(), options);
  CHECK(ruby_name(*heap, index_of(*heap, "0x11")) == "#<Class:0x11>");
  CHECK(ruby_name(*heap, index_of(*heap, "0x101")) == "StringIO");
}

TEST_CASE("Structs and typed DATA with a class group by the Ruby class", "[naming]") {
  auto heap = load_text(heap_text());
  auto key = [&](const char* address) { return object_key(*heap, index_of(*heap, address)); };
  CHECK(key("0x100") == "PriceCalculator::Quote");
  CHECK(key("0x101") == "StringIO");
  CHECK(key("0x102") == "Thread");
  CHECK(key("0x103") == "DATA:VM/env");
}

TEST_CASE("VM internals are told from Ruby-visible objects", "[naming]") {
  auto heap = load_text(heap_text());
  auto internal = [&](const char* address) {
    return is_vm_internal(*heap, index_of(*heap, address));
  };
  CHECK(internal("0x103"));
  CHECK(internal("0x104"));
  CHECK(internal("0x105"));
  CHECK_FALSE(internal("0x102"));  // a Thread is Ruby's
  CHECK_FALSE(internal("0x101"));
  CHECK_FALSE(internal("0x106"));
  CHECK_FALSE(internal("0x10"));
}
