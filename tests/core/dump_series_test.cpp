#include "core/dump_series.h"

#include <catch2/catch.hpp>
#include <cstdio>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// A dump with `pages` heap pages of 64 KiB from `base`, a few objects each;
// `generation` (when not 0) is every object's allocation generation.
std::shared_ptr<const Heap> dump(std::uint64_t base, int pages, int generation = 0) {
  // The class lives in the dump's own first page, as Ruby's would.
  char klass[32];
  std::snprintf(klass, sizeof klass, "0x%llx", static_cast<unsigned long long>(base + 0x8000));
  std::vector<std::string> lines{class_line(klass, "User")};
  for (int page = 0; page < pages; ++page) {
    for (int slot = 0; slot < 3; ++slot) {
      char address[32];
      std::snprintf(
          address, sizeof address, "0x%llx",
          static_cast<unsigned long long>(base + (std::uint64_t(page) << 16) + slot * 40));
      lines.push_back(object_line(
          {address,
           "OBJECT",
           klass,
           {},
           generation ? R"("file":"a.rb","line":1,"generation":)" + std::to_string(generation)
                      : std::string()}));
    }
  }
  return load_text(join_lines(lines));
}

bool has(const SeriesCheck& check, SeriesProblem problem) {
  for (const auto& finding : check.findings)
    if (finding.problem == problem) return true;
  return false;
}

}  // namespace

TEST_CASE("dumps of one process, in order, are one series", "[dump_series]") {
  auto a = dump(0x7f0000000000, 8, 5);
  auto b = dump(0x7f0000000000, 9, 7);
  auto c = dump(0x7f0000000000, 10, 9);
  const SeriesCheck check = check_series(*a, *b, c.get(), false);
  CHECK(check.findings.empty());
  CHECK_FALSE(check.broken());
}

TEST_CASE("a dump of another process shares no heap page", "[dump_series]") {
  auto a = dump(0x7f0000000000, 8);
  auto b = dump(0x55aa00000000, 8);  // another address space layout
  auto c = dump(0x55aa00000000, 9);
  const SeriesCheck check = check_series(*a, *b, c.get(), true);
  CHECK(has(check, SeriesProblem::kOtherProcess));
  CHECK(check.broken());
  CHECK(check.findings.front().first == "A");
  // The diff's "look compacted" warning names the wrong cause: dropped.
  std::vector<std::string> warnings{"only 0.0% of the objects of A ... the dumps look compacted",
                                    "something else"};
  add_series_warnings(check, warnings);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == "something else");
  CHECK(warnings[1].find("not from one process") != std::string::npos);
}

TEST_CASE("compaction within one process keeps the series", "[dump_series]") {
  auto a = dump(0x7f0000000000, 8);
  auto b = dump(0x7f0000000000, 8);
  const SeriesCheck check = check_series(*a, *b, nullptr, true);
  CHECK(has(check, SeriesProblem::kCompacted));
  CHECK_FALSE(check.broken());
}

TEST_CASE("dumps out of order by allocation generation", "[dump_series]") {
  auto a = dump(0x7f0000000000, 8, 9);  // really C
  auto b = dump(0x7f0000000000, 8, 7);
  auto c = dump(0x7f0000000000, 8, 5);  // really A
  const SeriesCheck check = check_series(*a, *b, c.get(), false);
  CHECK(has(check, SeriesProblem::kOutOfOrder));
  CHECK(check.broken());
  CHECK(check.findings.size() == 2);  // A-B and B-C
}

TEST_CASE("too small a heap to tell is never flagged", "[dump_series]") {
  auto a = dump(0x7f0000000000, 2);
  auto b = dump(0x55aa00000000, 2);
  CHECK(check_series(*a, *b, nullptr, false).findings.empty());
}
