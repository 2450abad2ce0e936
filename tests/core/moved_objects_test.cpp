// A partial compaction between B and C (core/diagnosis/moved_objects.h): the
// leaked objects it moved are found again by content, and, with C's
// references, also the copies alike that content alone cannot tell apart.
#include "core/diagnosis/moved_objects.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/diagnosis/leak_diff.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// As Ruby writes a String: its text and its length.
std::string value(const std::string& v) {
  return "\"value\":\"" + v + "\",\"bytesize\":" + std::to_string(v.size());
}
std::string addr(std::uint64_t a) { return format_address(a); }

// 1600 old Strings 4 KiB apart (16 to a 64 KiB page) and a cache class
// holding a Hash of Reports (Struct: a title, a row). `moved`: the first
// 160 old Strings, the Hash and every Report with its Strings sit
// elsewhere (a compaction emptied 10 pages). `reports`: distinct titles;
// `alike`: Reports whose title and row are the same text (copies alike).
std::string dump(int reports, int alike, bool moved) {
  std::vector<std::string> lines = {class_line("0x10", "Report")};
  for (int k = 0; k < 1600; ++k) {
    const std::uint64_t home = 0x1000000 + 0x1000 * std::uint64_t(k);
    lines.push_back(object_line({addr(moved && k < 160 ? 0x5000000 + 0x28 * k : home),
                                 "STRING",
                                 "",
                                 {},
                                 value("old " + std::to_string(k))}));
  }
  const std::uint64_t at = moved ? 0x7000000 : 0x3000000;
  std::vector<std::string> entries;
  for (int k = 0; k < reports + alike; ++k) {
    const std::uint64_t report = at + 0x100 * k;
    const std::string title = k < reports ? "title " + std::to_string(k) : "same title";
    lines.push_back(object_line({addr(report + 0x28), "STRING", "", {}, value(title)}));
    lines.push_back(object_line({addr(report + 0x50), "STRING", "", {}, value("same row")}));
    lines.push_back(
        object_line({addr(report), "STRUCT", "0x10", {addr(report + 0x28), addr(report + 0x50)}}));
    entries.push_back(addr(report));
  }
  const std::string hash = moved ? "0x6000000" : "0x2000000";
  lines.push_back(
      object_line({hash, "HASH", "", entries, "\"size\":" + std::to_string(entries.size())}));
  lines.push_back(class_line("0x20", "ReportCache", {hash}));
  return join_lines(lines);
}

}  // namespace

TEST_CASE("objects moved between B and C are matched back, copies alike by their holders",
          "[moved_objects]") {
  auto a = load_text(dump(0, 0, false));
  auto b = load_text(dump(10, 3, false));
  const std::string c_text = dump(12, 3, true);  // moved, and the cache grew by 2

  SECTION("C without references: by content alone, copies alike are not told apart") {
    LoadOptions identity_only;
    identity_only.mode = LoadMode::kIdentityOnly;
    auto c = load_text(c_text, identity_only);
    const LeakDiff diff = diff_heaps(*a, *b, c.get());
    CHECK_FALSE(diff.compacted);
    CHECK(diff.moved_later);
    CHECK_FALSE(diff.moved_with_references);
    // Unique titles are found again; the 13 Reports (alike in themselves),
    // the 13 "same row" Strings and the 3 "same title" ones are not.
    CHECK(diff.leaked.size() == 10);
    CHECK(diff.moved_unmatched == 29);
    REQUIRE_FALSE(diff.warnings.empty());
    CHECK_THAT(diff.warnings.back(), Catch::Contains("29 gone from their address could not be "
                                                     "told apart"));
  }

  SECTION("C with references: every moved object of B is found again") {
    auto c = load_text(c_text);
    const LeakDiff diff = diff_heaps(*a, *b, c.get());
    CHECK(diff.moved_later);
    CHECK(diff.moved_with_references);
    CHECK(diff.moved_unmatched == 0);
    CHECK(diff.leaked.size() == 39);  // 13 Reports, 13 titles, 13 rows
    REQUIRE_FALSE(diff.warnings.empty());
    CHECK_THAT(diff.warnings.back(), Catch::Contains("39 new objects of B were matched back"));
    CHECK_THAT(diff.warnings.back(), !Catch::Contains("could not be told apart"));
  }

  SECTION("a Report evicted between B and C is not found again in another's place") {
    // C's cache holds 9 of B's 10 distinct Reports and the 3 alike: the
    // Hash shrank, and is still the one holder (one Hash on each side).
    auto c = load_text(dump(9, 3, true));
    const LeakDiff diff = diff_heaps(*a, *b, c.get());
    CHECK(diff.moved_later);
    CHECK(diff.leaked.size() == 36);   // 9 + 3 Reports with their title and row
    CHECK(diff.moved_unmatched == 3);  // the evicted Report, its title and its row
  }
}

namespace {

// 1600 old IMEMOs 4 KiB apart, each holding the one String; in C the first
// 160 are gone (their pages emptied: the churn of a request, not a
// compaction) and as many alike were made elsewhere. An IMEMO has no length
// and an identity-only load keeps no reference count for it.
std::string imemo_dump(bool churned) {
  std::vector<std::string> lines = {object_line({"0x900", "STRING", "", {}, value("shared")})};
  for (int k = 0; k < 1600; ++k) {
    const std::uint64_t at = churned && k < 160 ? 0x5000000 + 0x28 * std::uint64_t(k)
                                                : 0x1000000 + 0x1000 * std::uint64_t(k);
    lines.push_back(object_line({addr(at), "IMEMO", "", {"0x900"}, "\"imemo_type\":\"env\""}));
  }
  return join_lines(lines);
}

}  // namespace

TEST_CASE("the moved verdict does not hang on how C was loaded", "[moved_objects]") {
  // A full C counts every object's references, an identity-only C (what
  // `heapleak` and a streaming heapleakd read) only some types': objects
  // whose size only the full load knows are never matched by content, so
  // both read the same churn as churn (a full C took it for a compaction).
  auto a = load_text(imemo_dump(false));
  auto b = load_text(imemo_dump(false));
  LoadOptions identity_only;
  identity_only.mode = LoadMode::kIdentityOnly;
  auto c_full = load_text(imemo_dump(true));
  auto c_identity = load_text(imemo_dump(true), identity_only);
  const LeakDiff full = diff_heaps(*a, *b, c_full.get());
  const LeakDiff identity = diff_heaps(*a, *b, c_identity.get());
  CHECK_FALSE(full.moved_later);
  CHECK_FALSE(identity.moved_later);
  CHECK(full.leaked == identity.leaked);
  CHECK(full.warnings == identity.warnings);
}
