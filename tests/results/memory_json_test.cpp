// explain's `memory` member (results/memory_json.h) and check's memory
// budgets (results/memory_gate.h), from accountings built by hand: the
// parts and RSS as given, the native verdict naming the rows that hold DATA
// objects, a budget passed, within, and not judged for want of RSS; and
// explain --format jsonl's memory line and columns.
#include "results/memory_json.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include "results/leak_rows_jsonl.h"
#include "results/memory_gate.h"

using namespace heapleak;
using namespace heapleak::results;
namespace json = boost::json;

namespace {

constexpr std::int64_t MiB = 1 << 20;

// RSS 400 MiB -> 680 MiB (+280): objects +41, free slots +6, malloc outside
// +20, free held +190, file +3, unexplained 280 - 260 = +20 MiB.
MemoryEvidence fragmented() {
  MemoryEvidence e;
  MemoryAccounting& a = e.accounting;
  a.from = "A";
  a.to = "C";
  a.objects_growth = 120000;
  a.ruby_objects = 41 * MiB;
  a.rss_from = 400 * MiB;
  a.rss_to = 680 * MiB;
  a.rss_growth = 280 * MiB;
  a.free_heap_slots = 6 * MiB;
  a.malloc_outside_objects = 20 * MiB;
  a.malloc_free_held = 190 * MiB;
  a.file_backed = 3 * MiB;
  a.unexplained = 20 * MiB;
  a.allocator = "glibc";
  a.verdict = MemoryVerdict::fragmentation;
  a.verdict_line =
      "bloat, not a leak: malloc holds freed memory (fragmentation) (68% of the RSS "
      "growth from A to C)";
  a.what_to_try = "MALLOC_ARENA_MAX=2 caps glibc's arenas";
  e.rss = {400 * MiB, 500 * MiB, 680 * MiB};
  e.leak_rows_bytes = 19 * MiB;
  e.rows_from = "A";
  e.rows_to = "B";
  e.rows_span_growth = 20 * MiB;
  return e;
}

std::int64_t part(const json::object& memory, const char* name) {
  for (const auto& entry : memory.at("parts").as_array())
    if (entry.at("name").as_string() == name) return entry.at("bytes").to_number<std::int64_t>();
  FAIL("no part " << name);
  return 0;
}

}  // namespace

TEST_CASE("memory: the parts, each dump's RSS, the verdict and the doc", "[memory]") {
  const json::object m = memory_json(fragmented());
  CHECK(m.at("from") == "A");
  CHECK(m.at("to") == "C");
  CHECK(m.at("rss") == json::array{400 * MiB, 500 * MiB, 680 * MiB});
  CHECK(m.at("rssGrowth") == 280 * MiB);
  CHECK(part(m, "rubyObjects") == 41 * MiB);
  CHECK(part(m, "freeHeapSlots") == 6 * MiB);
  CHECK(part(m, "mallocOutsideObjects") == 20 * MiB);
  CHECK(part(m, "mallocFreeHeld") == 190 * MiB);
  CHECK(part(m, "fileBacked") == 3 * MiB);
  CHECK(part(m, "unexplained") == 20 * MiB);
  // The parts and unexplained add up to the RSS growth.
  std::int64_t sum = 0;
  for (const auto& entry : m.at("parts").as_array())
    sum += entry.at("bytes").to_number<std::int64_t>();
  CHECK(sum == 280 * MiB);
  CHECK(m.at("leakRows").at("bytes") == 19 * MiB);
  CHECK(m.at("leakRows").at("rubyObjects") == 20 * MiB);
  CHECK(m.at("verdict") == "fragmentation");
  CHECK(m.at("tryNext") == json::array{"MALLOC_ARENA_MAX=2 caps glibc's arenas"});
  CHECK(m.at("allocator") == "glibc");
  CHECK(m.at("doc") == "docs/memory.md");
}

TEST_CASE("memory: without manifests RSS is null and its parts too", "[memory]") {
  MemoryEvidence e;
  std::vector<MemoryDump> dumps{{"A", {1000, 80000}, std::nullopt},
                                {"B", {1500, 120000}, std::nullopt},
                                {"C", {2000, 160000}, std::nullopt}};
  e.accounting = account_memory(dumps);
  e.rss = {std::nullopt, std::nullopt, std::nullopt};
  const json::object m = memory_json(e);
  CHECK(m.at("rss").is_null());
  CHECK(m.at("rssGrowth").is_null());
  CHECK(m.at("objectsGrowth") == 1000);
  CHECK(part(m, "rubyObjects") == 80000);
  for (const char* name :
       {"freeHeapSlots", "mallocOutsideObjects", "mallocFreeHeld", "unexplained"})
    for (const auto& entry : m.at("parts").as_array())
      if (entry.at("name").as_string() == name) CHECK(entry.at("bytes").is_null());
  CHECK(m.at("verdict") == "notEnoughFigures");
  CHECK(std::string(m.at("verdictText").as_string()).find("RSS was not recorded") == 0);
}

TEST_CASE("memory: the native verdict names the rows holding DATA objects", "[memory]") {
  MemoryEvidence e = fragmented();
  e.accounting.verdict = MemoryVerdict::nativeMemory;
  e.accounting.verdict_line = "native memory held by objects";
  e.native_rows = {{2, "Array in Registry", {300, 33600, 300, "Zlib::Deflate", 300}},
                   {5, "Hash in Pool", {4, 0, 4, "DATA", 4}}};
  const json::object m = memory_json(e);
  CHECK(m.at("verdictText") ==
        "native memory held by objects; DATA objects are held by row 2 (Array in Registry: 300 "
        "Zlib::Deflate), row 5 (Hash in Pool: 4 DATA)");
  const json::array& rows = m.at("nativeRows").as_array();
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("rank") == 2);
  CHECK(rows[0].at("class") == "Zlib::Deflate");
  CHECK(rows[0].at("bytes") == 33600);
  CHECK(rows[0].at("undercounted") == 300);
  CHECK(row_native_json(RowNative{}).is_null());
}

TEST_CASE("check's memory budgets: within, over, not judged", "[memory][gate]") {
  const MemoryAccounting a = fragmented().accounting;
  GateBudget budget;
  budget.max_unexplained = 50 * MiB;  // unexplained +20 MiB: within
  GateVerdict within;
  judge_memory(a, budget, within);
  CHECK(within.passed);
  REQUIRE(within.memory);
  CHECK(!within.memory->over_unexplained);
  CHECK(within.memory->verdict == "fragmentation");

  budget.max_rss_growth = 200 * MiB;  // RSS +280 MiB: over
  GateVerdict over;
  judge_memory(a, budget, over);
  CHECK(!over.passed);
  CHECK(over.memory->over_rss);
  REQUIRE(over.reasons.size() == 1);
  CHECK(over.reasons[0].find("RSS grew +280.0 MiB from A to C over --max-rss-growth 200.0 MiB") ==
        0);

  MemoryAccounting unknown =
      account_memory({{"A", {1, 40}, std::nullopt}, {"C", {2, 80}, std::nullopt}});
  GateVerdict blind;
  judge_memory(unknown, budget, blind);
  CHECK(!blind.passed);
  REQUIRE(blind.reasons.size() == 2);
  CHECK(blind.reasons[0].find("is not known") != std::string::npos);

  GateVerdict none;  // no memory budget: nothing judged
  judge_memory(a, GateBudget{}, none);
  CHECK(none.passed);
  CHECK(!none.memory);
}

TEST_CASE("jsonl: a memory line per run, and the memory columns on every row", "[memory][jsonl]") {
  json::object explain{
      {"leaks", json::array{json::object{
                    {"signature", "0123456789abcdef"}, {"key", "Hash in CacheX"}, {"count", 10}}}},
      {"memory", memory_json(fragmented())}};
  DumpFacts a;
  a.path = "a.json";
  DumpFacts c;
  c.path = "c.json";
  const std::string text = leak_rows_jsonl(explain, {a, c});
  const auto newline = text.find('\n');
  const json::object memory = json::parse(text.substr(0, newline)).as_object();
  const json::object leak = json::parse(text.substr(newline + 1)).as_object();
  CHECK(memory.at("kind") == "memory");
  CHECK(memory.at("signature").is_null());
  CHECK(memory.at("rank") == 0);
  CHECK(leak.at("kind") == "leak");
  CHECK(leak.at("rank") == 1);
  for (const json::object* line : {&memory, &leak}) {
    CHECK(line->at("memory_verdict") == "fragmentation");
    CHECK(line->at("rss_growth") == 280 * MiB);
    CHECK(line->at("malloc_free_held_growth") == 190 * MiB);
    CHECK(line->at("ruby_objects_growth") == 41 * MiB);
    CHECK(line->at("unexplained_growth") == 20 * MiB);
    CHECK(line->at("dumps") == json::array{"a.json", "c.json"});
  }
  // The same keys on both lines: one table.
  CHECK(memory.size() == leak.size());
}
