#include "core/diagnosis/identity.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "core/diagnosis/counterparts.h"
#include "core/loading/loader.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

bool same(const std::string& x_line, const std::string& y_line, const std::string& shared = "") {
  auto x = load_text(
      join_lines({class_line("0x10", "User"), class_line("0x20", "Admin"), shared, x_line}));
  auto y = load_text(
      join_lines({class_line("0x30", "User"), class_line("0x40", "Admin"), shared, y_line}));
  const auto rule = IdentityRule::between(*x, *y);
  const ObjectIndex i = index_of(*x, "0x100"), j = index_of(*y, "0x100");
  const bool answer = same_object(rule, *x, i, *y, j);
  // The diff's matcher (names by id) answers every case alike.
  CHECK(SameObject(rule, *x, *y)(i, j) == answer);
  return answer;
}

}  // namespace

TEST_CASE("class addresses may move: the class name decides", "[identity]") {
  CHECK(same(object_line({"0x100", "OBJECT", "0x10"}), object_line({"0x100", "OBJECT", "0x30"})));
  CHECK_FALSE(
      same(object_line({"0x100", "OBJECT", "0x10"}), object_line({"0x100", "OBJECT", "0x40"})));
}

TEST_CASE("type and value tell a reused slot apart", "[identity]") {
  CHECK_FALSE(same(object_line({"0x100", "STRING"}), object_line({"0x100", "ARRAY"})));
  CHECK_FALSE(same(object_line({"0x100", "STRING", "", {}, R"("value":"a")"}),
                   object_line({"0x100", "STRING", "", {}, R"("value":"b")"})));
  CHECK(same(object_line({"0x100", "STRING", "", {}, R"("value":"a")"}),
             object_line({"0x100", "STRING", "", {}, R"("value":"a")"})));
}

TEST_CASE("with tracing, generation and allocation site must agree", "[identity]") {
  CHECK_FALSE(same(
      object_line({"0x100", "OBJECT", "0x10", {}, R"("file":"a.rb", "line":1, "generation":3)"}),
      object_line({"0x100", "OBJECT", "0x30", {}, R"("file":"a.rb", "line":1, "generation":5)"})));
  CHECK_FALSE(same(
      object_line({"0x100", "OBJECT", "0x10", {}, R"("file":"a.rb", "line":1, "generation":3)"}),
      object_line({"0x100", "OBJECT", "0x30", {}, R"("file":"a.rb", "line":2, "generation":3)"})));
  CHECK(same(
      object_line({"0x100", "OBJECT", "0x10", {}, R"("file":"a.rb", "line":1, "generation":3)"}),
      object_line({"0x100", "OBJECT", "0x30", {}, R"("file":"a.rb", "line":1, "generation":3)"})));
}

TEST_CASE("without tracing, a different first reference means a different object", "[identity]") {
  const std::string shared =
      join_lines({object_line({"0x200", "STRING"}), object_line({"0x300", "STRING"})});
  CHECK_FALSE(same(object_line({"0x100", "ARRAY", "", {"0x200"}}),
                   object_line({"0x100", "ARRAY", "", {"0x300"}}), shared));
  CHECK(same(object_line({"0x100", "ARRAY", "", {"0x200"}}),
             object_line({"0x100", "ARRAY", "", {"0x200", "0x300"}}), shared));
  CHECK(same(object_line({"0x100", "ARRAY"}), object_line({"0x100", "ARRAY", "", {"0x300"}}),
             shared));
}

TEST_CASE("the rule says which fields it compared", "[identity]") {
  IdentityRule rule;
  rule.generation = true;
  rule.allocation_site = true;
  rule.contents = false;
  CHECK(rule.describe() == "address+type+class name+allocation site+generation");
}

TEST_CASE("a string that became shared is the same object, traced or not", "[identity]") {
  // Ruby turns a heap String into a shared one in place (dup, or to_json
  // with ActiveSupport): `value` goes, `shared` and a reference come.
  const std::string root = object_line({"0x500", "STRING", "", {}, R"("value":"xxxx")"});
  const std::string before = R"("bytesize":40, "value":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")";
  CHECK(same(object_line({"0x100", "STRING", "", {}, before}),
             object_line({"0x100", "STRING", "", {"0x500"}, R"("shared":true)"}), root));
  const std::string site = R"("file":"a.rb", "line":1, "generation":3, )";
  CHECK(same(object_line({"0x100", "STRING", "", {}, site + before}),
             object_line({"0x100", "STRING", "", {"0x500"}, site + R"("shared":true)"}), root));
  // Traced: a changed value does not decide either (site and generation do).
  CHECK(same(object_line({"0x100", "STRING", "", {}, site + R"("value":"a")"}),
             object_line({"0x100", "STRING", "", {}, site + R"("value":"b")"})));
  // Untraced, two values that differ still tell a reused slot apart.
  CHECK_FALSE(same(object_line({"0x100", "STRING", "", {}, before}),
                   object_line({"0x100", "STRING", "", {}, R"("value":"y")"}), root));
}

TEST_CASE("traced dumps: objects older than tracing fall back to contents", "[identity]") {
  const std::string traced =
      object_line({"0x900", "OBJECT", "0x10", {}, R"("file":"a.rb", "line":1, "generation":3)"});
  CHECK_FALSE(same(traced + "\n" + object_line({"0x100", "STRING", "", {}, R"("value":"a")"}),
                   traced + "\n" + object_line({"0x100", "STRING", "", {}, R"("value":"b")"})));
}

TEST_CASE("SameObject agrees with same_object on every address shared by two real dumps",
          "[identity]") {
  const std::string dir = std::string(HEAPLEAK_TEST_DATA_DIR) + "/";
  const std::pair<const char*, const char*> pairs[] = {
      {"rbheap-3dump/heap1.jsonl.gz", "rbheap-3dump/heap2.jsonl.gz"},
      {"rbheap-3dump/heap3.jsonl.gz", "rbheap-3dump/heap2.jsonl.gz"},
      {"heap-profiler/ruby-3.0-singleton-classes.heap.gz", "heapy/my_dump_1.json.gz"}};
  for (const auto& [first, second] : pairs) {
    INFO(first << " / " << second);
    auto x = load_heap(dir + first);
    auto y = load_heap(dir + second);
    REQUIRE(x);
    REQUIRE(y);
    const auto rule = IdentityRule::between(**x, **y);
    const SameObject same(rule, **x, **y);
    std::size_t shared = 0, matched = 0, differing = 0;
    for (ObjectIndex i = 0; i < (*x)->size(); ++i) {
      const auto j = (*y)->find((*x)->address(i));
      if (!j) continue;
      ++shared;
      const bool answer = same_object(rule, **x, i, **y, *j);
      matched += answer ? 1 : 0;
      differing += same(i, *j) != answer ? 1 : 0;
    }
    CHECK(differing == 0);
    if (std::string(first).find("rbheap") != std::string::npos) {
      CHECK(shared > 1000);
      CHECK(matched > 0);
    }
  }
}

// Ruby 3.3+ puts small Hashes in a slot pool of their own: a new Hash of a new
// record lands where A had an empty Hash, and a new shared String where A had
// a dead String. The contents test passes (contents only appeared), but B's
// edges show who holds them: new objects only, where an object that kept its
// identity (an empty Hash that gained entries, a String that turned shared in
// place) is still held by an old one.
TEST_CASE("lenient matches held only by new objects are new", "[identity]") {
  const std::string classes = join_lines(
      {class_line("0x10", "User"), class_line("0x20", "Hash"), class_line("0x30", "String")});
  auto a =
      load_text(classes + "\n" +
                join_lines({
                    root_line("vm", {"0x100", "0x600"}),
                    object_line({"0x100", "OBJECT", "0x10", {"0x200"}}),  // old User
                    object_line({"0x200", "HASH", "0x20"}),               // empty, gains entries
                    object_line({"0x300", "HASH", "0x20"}),               // empty, dies
                    object_line({"0x400", "STRING", "0x30", {}, R"("value":"x")"}),  // dies
                    object_line({"0x500", "STRING", "0x30", {}, R"("value":"y")"}),  // turns shared
                    object_line({"0x600", "ARRAY", "", {"0x500"}}),
                }));
  auto b = load_text(classes + "\n" +
                     join_lines({
                         root_line("vm", {"0x100", "0x600", "0x700"}),
                         object_line({"0x100", "OBJECT", "0x10", {"0x200"}}),
                         object_line({"0x200", "HASH", "0x20", {"0x900"}}),  // kept its identity
                         object_line({"0x300", "HASH", "0x20", {"0x900"}}),  // new, in a new User
                         object_line({"0x400", "STRING", "0x30", {"0x900"}, R"("shared":true)"}),
                         object_line({"0x500", "STRING", "0x30", {"0x900"}, R"("shared":true)"}),
                         object_line({"0x600", "ARRAY", "", {"0x500"}}),
                         object_line({"0x700", "OBJECT", "0x10", {"0x300", "0x400"}}),  // new User
                         object_line({"0x900", "STRING", "0x30", {}, R"("value":"y")"}),
                     }));
  // The diff's matches at the same address (counterparts.h), then undone.
  const Counterparts in_a = counterparts_of(*b, *a);
  std::vector<char> match(b->size(), 0);
  for (ObjectIndex i = 0; i < b->size(); ++i) match[i] = in_a.same(i);
  auto matched = [&](const char* address) { return match[index_of(*b, address)] != 0; };
  REQUIRE(matched("0x300"));  // the contents test alone cannot tell
  REQUIRE(matched("0x400"));
  CHECK(undo_unheld_lenient_matches(*b, in_a, match) == 2);
  CHECK_FALSE(matched("0x300"));
  CHECK_FALSE(matched("0x400"));
  CHECK(matched("0x100"));
  CHECK(matched("0x200"));  // held by the old User
  CHECK(matched("0x500"));  // held by the old Array
}

// A new shared String (a substring kept in an old log Array) on the slot of a
// dead String: its holder is old, but its root holds other bytes than A's
// String had; one that turned shared in place gave its own bytes to its root.
TEST_CASE("a shared String whose root holds other bytes is new", "[identity]") {
  const std::string classes = class_line("0x30", "String");
  auto a = load_text(classes + "\n" +
                     join_lines({
                         root_line("vm", {"0x600"}),
                         object_line({"0x400", "STRING", "0x30", {}, R"("value":"tmp")"}),  // dies
                         object_line({"0x500", "STRING", "0x30", {}, R"("value":"kept")"}),
                         object_line({"0x600", "ARRAY", "", {"0x500"}}),
                     }));
  auto b = load_text(classes + "\n" +
                     join_lines({
                         root_line("vm", {"0x600"}),
                         object_line({"0x400", "STRING", "0x30", {"0x800"}, R"("shared":true)"}),
                         object_line({"0x500", "STRING", "0x30", {"0x900"}, R"("shared":true)"}),
                         object_line({"0x600", "ARRAY", "", {"0x500", "0x400"}}),
                         object_line({"0x800", "STRING", "", {}, R"("value":"GET /orders/17")"}),
                         object_line({"0x900", "STRING", "", {}, R"("value":"kept")"}),
                     }));
  // The diff's matches at the same address (counterparts.h), then undone.
  const Counterparts in_a = counterparts_of(*b, *a);
  std::vector<char> match(b->size(), 0);
  for (ObjectIndex i = 0; i < b->size(); ++i) match[i] = in_a.same(i);
  auto matched = [&](const char* address) { return match[index_of(*b, address)] != 0; };
  REQUIRE(matched("0x400"));
  CHECK(undo_unheld_lenient_matches(*b, in_a, match) == 1);
  CHECK_FALSE(matched("0x400"));  // held by the old Array, but other bytes
  CHECK(matched("0x500"));        // turned shared in place: its root has its bytes
}
