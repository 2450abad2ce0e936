#include "core/series/dump_series.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "core/loading/loader.h"
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

namespace {

// A folder of dumps, each with the capture gem's manifest beside it.
struct ManifestSeries {
  std::string dir;
  ManifestSeries() {
    char pattern[] = "/tmp/heapleak-series-XXXXXX";
    dir = ::mkdtemp(pattern);
  }
  ~ManifestSeries() { std::system(("rm -rf " + dir).c_str()); }

  std::shared_ptr<const Heap> add(const std::string& name, std::uint64_t /*base*/, int pid,
                                  int gc_count, int compact_count) {
    // The same heap pages each time: the page heuristic alone would call these one series.
    const std::string path = dir + "/" + name + ".json";
    {
      std::ofstream out(path);
      out << join_lines({class_line("0x7f0000008000", "User"),
                         object_line({"0x7f0000000028", "OBJECT", "0x7f0000008000", {}, ""}),
                         object_line({"0x7f0000010028", "OBJECT", "0x7f0000008000", {}, ""}),
                         object_line({"0x7f0000020028", "OBJECT", "0x7f0000008000", {}, ""}),
                         object_line({"0x7f0000030028", "OBJECT", "0x7f0000008000", {}, ""})});
    }
    std::ofstream(dir + "/" + name + ".manifest.json")
        << R"({"format":"heapleak-capture-manifest","process":{"pid":)" << pid
        << R"(,"started_at":"2026-12-05T01:00:00Z","hostname":"web-1"},"gc":{"count":)" << gc_count
        << R"(,"compact_count":)" << compact_count << R"(},"capture":{"mode":"fork"}})";
    auto heap = load_heap(path, {});
    REQUIRE(heap);
    return *heap;
  }
};

const SeriesFinding* finding_of(const SeriesCheck& check, SeriesProblem problem) {
  for (const auto& finding : check.findings)
    if (finding.problem == problem) return &finding;
  return nullptr;
}

}  // namespace

TEST_CASE("the capture manifests decide: another process, out of order, a compaction",
          "[dump_series]") {
  ManifestSeries series;
  SECTION("one process, in order: one series") {
    auto a = series.add("A", 0x7f0000000000, 42, 10, 0);
    auto b = series.add("B", 0x7f0000000000, 42, 12, 0);
    auto c = series.add("C", 0x7f0000000000, 42, 14, 0);
    const SeriesCheck check = check_series(*a, *b, c.get(), /*compacted=*/true);
    CHECK(check.findings.empty());  // the manifests say no compaction: the heuristic is not asked
    CHECK_FALSE(check.broken());
  }
  SECTION("another pid, though every heap page is shared") {
    auto a = series.add("A", 0x7f0000000000, 42, 10, 0);
    auto b = series.add("B", 0x7f0000000000, 43, 12, 0);
    const SeriesCheck check = check_series(*a, *b, nullptr, false);
    const auto* finding = finding_of(check, SeriesProblem::kOtherProcess);
    REQUIRE(finding);
    CHECK(finding->from_manifest);
    CHECK(finding->message.find("pid 42") != std::string::npos);
    CHECK(check.broken());
  }
  SECTION("GC count going back") {
    auto a = series.add("A", 0x7f0000000000, 42, 14, 0);
    auto b = series.add("B", 0x7f0000000000, 42, 10, 0);
    const SeriesCheck check = check_series(*a, *b, nullptr, false);
    REQUIRE(finding_of(check, SeriesProblem::kOutOfOrder));
    CHECK(check.broken());
  }
  SECTION("a recorded compaction breaks the series and is said") {
    auto a = series.add("A", 0x7f0000000000, 42, 10, 0);
    auto b = series.add("B", 0x7f0000000000, 42, 12, 1);
    const SeriesCheck check = check_series(*a, *b, nullptr, false);
    const auto* finding = finding_of(check, SeriesProblem::kCompacted);
    REQUIRE(finding);
    CHECK(finding->message.find("compact_count 0 -> 1") != std::string::npos);
    CHECK(check.broken());
    std::vector<std::string> warnings;
    add_series_warnings(check, warnings);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == finding->message);
  }
}

TEST_CASE("a series D1..DN is checked pair by pair, its dumps named D1, D2, ...", "[dump_series]") {
  auto d1 = dump(0x7f0000000000, 8, 3);
  auto d2 = dump(0x7f0000000000, 9, 5);
  auto d3 = dump(0x7f0000000000, 9, 4);  // taken before D2: only D2-D3 is out of order
  auto d4 = dump(0x7f0000000000, 10, 7);
  auto d5 = dump(0x7f0000000000, 10, 9);
  const std::vector<const Heap*> heaps{d1.get(), d2.get(), d3.get(), d4.get(), d5.get()};
  const SeriesCheck check = check_series_of(heaps, false);
  REQUIRE(check.findings.size() == 1);
  CHECK(check.findings[0].problem == SeriesProblem::kOutOfOrder);
  CHECK(check.findings[0].first == "D2");
  CHECK(check.findings[0].second == "D3");
  CHECK(check.findings[0].message.find("D3's newest object") != std::string::npos);
  // D1, D4, D5 alone (what the 3-dump diff reads) do not see it.
  CHECK(check_series(*d1, *d4, d5.get(), false).findings.empty());
  // The diff's compaction flag names the whole series, first to last.
  const std::vector<const Heap*> clean{d1.get(), d2.get(), d4.get(), d5.get()};
  const SeriesCheck compacted = check_series_of(clean, true);
  REQUIRE(compacted.findings.size() == 1);
  CHECK(compacted.findings[0].first == "D1");
  CHECK(compacted.findings[0].second == "D4");
}
