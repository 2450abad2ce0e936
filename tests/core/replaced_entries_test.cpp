#include "core/diagnosis/replaced_entries.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "core/diagnosis/growth_verdict.h"
#include "core/explain/explain_pipeline.h"
#include "core/heap/record_rescan.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using heapleak::test::class_line;
using heapleak::test::index_of;
using heapleak::test::join_lines;
using heapleak::test::Obj;
using heapleak::test::object_line;
using heapleak::test::root_line;
using heapleak::test::TempFile;

namespace {

// A SessionStore (0x100) holding its name (a String) and its sessions Hash,
// which `@sessions = @sessions.reject { ... }` replaces by a new Hash: in
// each dump it is at another address, of another size.
std::string store_dump(const std::string& hash_address, int size) {
  return join_lines(
      {class_line("0x10", "SessionStore"), class_line("0x11", "String"), class_line("0x12", "Hash"),
       root_line("vm", {"0x100"}),
       object_line(Obj{"0x100", "OBJECT", "0x10", {"0x180", hash_address}}),
       object_line(Obj{"0x180", "STRING", "0x11", {}, "\"bytesize\":4"}),
       object_line(Obj{hash_address, "HASH", "0x12", {}, "\"size\":" + std::to_string(size)})});
}

std::shared_ptr<const Heap> load(const TempFile& file, LoadMode mode) {
  LoadOptions options;
  options.mode = mode;
  auto heap = load_heap(file.path(), options);
  REQUIRE(heap);
  return *heap;
}

}  // namespace

TEST_CASE("a container replaced between dumps is found where its owner holds it",
          "[replaced_entries]") {
  TempFile a(store_dump("0x300", 54)), b(store_dump("0x200", 49)), c(store_dump("0x400", 59));
  for (bool gzip : {false, true}) {
    TempFile cz(store_dump("0x400", 59), gzip);
    auto target = load(b, LoadMode::kFull);
    auto baseline = load(a, LoadMode::kIdentityOnly);  // no references: read back from the file
    auto later = load(cz, LoadMode::kIdentityOnly);
    const EntryQuery query{index_of(*target, "0x100"), index_of(*target, "0x200")};
    const auto in_a = find_replaced_entries(*target, std::span(&query, 1), *baseline);
    const auto in_c = find_replaced_entries(*target, std::span(&query, 1), *later);
    REQUIRE(in_a[0]);
    REQUIRE(in_c[0]);
    CHECK(baseline->address(*in_a[0]) == 0x300);
    CHECK(later->address(*in_c[0]) == 0x400);
    CHECK(later->length(*in_c[0]) == 59u);
  }
  // A full load of C answers from its own edges.
  auto target = load(b, LoadMode::kFull);
  auto full_c = load(c, LoadMode::kFull);
  const EntryQuery query{index_of(*target, "0x100"), index_of(*target, "0x200")};
  CHECK(full_c->address(*find_replaced_entries(*target, std::span(&query, 1), *full_c)[0]) ==
        0x400);
}

TEST_CASE("no answer when the owner is another object or the dump changed", "[replaced_entries]") {
  TempFile b(store_dump("0x200", 49));
  auto target = load(b, LoadMode::kFull);
  const EntryQuery query{index_of(*target, "0x100"), index_of(*target, "0x200")};
  SECTION("the owner's address holds another kind of object in C") {
    TempFile c(join_lines({class_line("0x13", "Other"), root_line("vm", {"0x100"}),
                           object_line(Obj{"0x100", "OBJECT", "0x13", {"0x400"}}),
                           object_line(Obj{"0x400", "HASH", "", {}, "\"size\":3"})}));
    auto later = load(c, LoadMode::kIdentityOnly);
    CHECK_FALSE(find_replaced_entries(*target, std::span(&query, 1), *later)[0]);
  }
  SECTION("the owner holds no Hash in C") {
    TempFile c(join_lines({class_line("0x10", "SessionStore"), root_line("vm", {"0x100"}),
                           object_line(Obj{"0x100", "OBJECT", "0x10", {}})}));
    auto later = load(c, LoadMode::kIdentityOnly);
    CHECK_FALSE(find_replaced_entries(*target, std::span(&query, 1), *later)[0]);
  }
  SECTION("C's file was rewritten since it was loaded: never read as the old one") {
    TempFile c(store_dump("0x400", 59));
    auto later = load(c, LoadMode::kIdentityOnly);
    std::ofstream(c.path(), std::ios::app) << object_line(Obj{"0x500", "STRING"}) << "\n";
    CHECK_FALSE(find_replaced_entries(*target, std::span(&query, 1), *later)[0]);
    const auto reread = reread_references(*later, {0x100});
    REQUIRE_FALSE(reread);
    CHECK(reread.error().reason == ErrorReason::kDumpChanged);
  }
}

TEST_CASE("records are read back by address, across the reader's blocks", "[replaced_entries]") {
  std::vector<std::string> lines = {root_line("vm", {"0x100"})};
  for (int k = 0; k < 60000; ++k) {  // > 4 MiB: more than one of the line reader's blocks
    const std::string address = "0x" + std::to_string(1000000 + k);
    lines.push_back(object_line(Obj{address,
                                    "ARRAY",
                                    "",
                                    {"0x100", "0x" + std::to_string(k + 1)},
                                    "\"length\":2,\"padding\":\"" + std::string(40, 'x') + "\""}));
  }
  for (bool gzip : {false, true}) {
    TempFile dump(join_lines(lines), gzip);
    LoadOptions options;
    options.mode = LoadMode::kIdentityOnly;
    auto heap = load_heap(dump.path(), options);
    REQUIRE(heap);
    const auto found = reread_references(**heap, {0x1000000, 0x1059999, 0x1012345, 0xdead});
    REQUIRE(found);
    CHECK(found->size() == 3);  // 0xdead has no record
    CHECK(found->at(0x1059999) == std::vector<Address>{0x100, 0x60000});
    CHECK(found->at(0x1012345) == std::vector<Address>{0x100, 0x12346});
  }
}

TEST_CASE("a replaced container that turned over is bounded; one that keeps all is not",
          "[replaced_entries]") {
  Growth g;
  g.field = "size";
  g.baseline = 54;
  g.target = 49;
  g.later = 59;
  CHECK_FALSE(looks_bounded(g));  // a dip, then above the 5% tolerance
  g.replaced = true;
  g.dropped = 40;  // most of B's 49 sessions expired by C
  CHECK(looks_bounded(g));
  g.dropped = 10;  // kept most of what it held: it grows
  CHECK_FALSE(looks_bounded(g));
  g.dropped = 40;
  g.later = 110;  // turned over, yet gained more than it lost
  CHECK_FALSE(looks_bounded(g));
  Growth evicting_leak;  // logged-out sessions dropped, most kept: a leak
  evicting_leak.field = "size";
  evicting_leak.baseline = 1000;
  evicting_leak.target = 1100;
  evicting_leak.later = 1200;
  evicting_leak.replaced = true;
  evicting_leak.dropped = 100;
  CHECK_FALSE(looks_bounded(evicting_leak));
}
