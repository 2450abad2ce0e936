// Where a series' RSS growth went (core/series/memory_accounting.h): each
// case's figures worked by hand in its comments.
#include "core/series/memory_accounting.h"

#include <catch2/catch.hpp>

#include "core/heap/dump_summary.h"
#include "test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

constexpr std::uint64_t MiB = 1 << 20;

// A Ruby 3.1 process on glibc: 40-byte slots, heap pages from malloc.
DumpMemory ruby31(std::uint64_t rss, std::uint64_t anonymous, std::uint64_t free_slot_bytes,
                  std::uint64_t page_bytes, std::uint64_t in_use, std::uint64_t free_held) {
  DumpMemory m;
  m.rss = rss;
  m.anonymous = anonymous;
  m.file = rss - anonymous;
  m.slot_size = 40;
  m.free_slot_bytes = free_slot_bytes;
  m.pages_from_malloc = true;
  m.page_bytes = page_bytes;
  m.allocator = "glibc";
  m.malloc_in_use = in_use;
  m.malloc_free_held = free_held;
  return m;
}

}  // namespace

TEST_CASE("fragmentation: malloc's free-but-held bytes are most of the growth", "[memory]") {
  // A: 100,000 objects, 10,000,000 B of memsize (4,000,000 in slots, so
  // 6,000,000 owned outside them); 280 pages of 16 KiB = 4,587,520 B in malloc.
  // malloc outside objects = 30,000,000 - 6,000,000 - 4,587,520 = 19,412,480.
  // C: 101,000 objects, 10,100,000 B (4,040,000 in slots, 6,060,000 outside);
  // 300 pages = 4,915,200 B. Outside = 32,000,000 - 6,060,000 - 4,915,200 =
  // 21,024,800.
  const MemoryDump a{"A",
                     {100'000, 10'000'000},
                     ruby31(100 * MiB, 80 * MiB, 400'000, 4'587'520, 30'000'000, 5'000'000)};
  const MemoryDump c{"C",
                     {101'000, 10'100'000},
                     ruby31(300 * MiB, 279 * MiB, 800'000, 4'915'200, 32'000'000, 185'000'000)};
  const MemoryAccounting acc = account_memory({a, c});
  CHECK(acc.from == "A");
  CHECK(acc.to == "C");
  CHECK(acc.objects_growth == 1'000);
  CHECK(acc.ruby_objects == 100'000);
  CHECK(acc.rss_from == 100 * MiB);
  CHECK(acc.rss_to == 300 * MiB);
  CHECK(acc.rss_growth == 209'715'200);
  CHECK(acc.file_backed == 1'048'576);  // 21 MiB - 20 MiB
  CHECK(acc.free_heap_slots == 400'000);
  CHECK(acc.malloc_outside_objects == 1'612'320);  // 21,024,800 - 19,412,480
  CHECK(acc.malloc_free_held == 180'000'000);
  // 209,715,200 - (100,000 + 1,048,576 + 400,000 + 1,612,320 + 180,000,000)
  CHECK(acc.unexplained == 26'554'304);
  CHECK(acc.allocator == "glibc");
  CHECK(acc.verdict == MemoryVerdict::fragmentation);
  CHECK(memory_verdict_name(acc.verdict) == "fragmentation");
  // 180,000,000 / 209,715,200 = 85.8%
  CHECK(acc.verdict_line ==
        "bloat, not a leak: malloc holds freed memory (fragmentation) (86% of the RSS growth "
        "from A to C)");
  CHECK(acc.what_to_try.find("MALLOC_ARENA_MAX=2") != std::string::npos);
  CHECK(acc.what_to_try.find("malloc_trim(0)") != std::string::npos);
  CHECK(acc.notes.empty());
}

TEST_CASE("a Ruby-heap leak: the objects' memsize is most of the growth", "[memory]") {
  // Ruby 3.2+ style: pages mmapped (not in malloc), free slot bytes not
  // given, so heap_free_slots x slot_size: 10,000 x 40 = 400,000 -> 5,000 x
  // 40 = 200,000. Outside objects: A 50,000,000 - (20,000,000 - 200,000 x
  // 40) = 38,000,000; C 131,000,000 - (120,000,000 - 1,200,000 x 40) =
  // 59,000,000.
  auto memory = [](std::uint64_t rss, std::uint64_t file, std::uint64_t free_slots,
                   std::uint64_t in_use, std::uint64_t free_held) {
    DumpMemory m;
    m.rss = rss;
    m.anonymous = rss - file;
    m.file = file;
    m.slot_size = 40;
    m.heap_free_slots = free_slots;
    m.pages_from_malloc = false;
    m.allocator = "glibc";
    m.malloc_in_use = in_use;
    m.malloc_free_held = free_held;
    return m;
  };
  const MemoryDump d1{
      "D1", {200'000, 20'000'000}, memory(200'000'000, 20'000'000, 10'000, 50'000'000, 2'000'000)};
  const MemoryDump d2{"D2", {700'000, 70'000'000}, std::nullopt};  // not read
  const MemoryDump d3{"D3",
                      {1'200'000, 120'000'000},
                      memory(330'000'000, 21'000'000, 5'000, 131'000'000, 3'000'000)};
  const MemoryAccounting acc = account_memory({d1, d2, d3});
  CHECK(acc.from == "D1");
  CHECK(acc.to == "D3");
  CHECK(acc.objects_growth == 1'000'000);
  CHECK(acc.ruby_objects == 100'000'000);
  CHECK(acc.rss_growth == 130'000'000);
  CHECK(acc.file_backed == 1'000'000);
  CHECK(acc.free_heap_slots == -200'000);
  CHECK(acc.malloc_outside_objects == 21'000'000);
  CHECK(acc.malloc_free_held == 1'000'000);
  // 130,000,000 - (100,000,000 + 1,000,000 - 200,000 + 21,000,000 + 1,000,000)
  CHECK(acc.unexplained == 7'200'000);
  CHECK(acc.verdict == MemoryVerdict::rubyHeap);
  CHECK(acc.verdict_line ==
        "a leak in the Ruby heap: Ruby objects grew most (77% of the RSS growth from D1 to D3)");
  REQUIRE(acc.notes.size() == 1);
  CHECK(acc.notes[0].rfind("free heap slots counted at the base slot size", 0) == 0);
}

TEST_CASE("native memory: malloc in use grows outside the objects' memsize; a clamp is said",
          "[memory]") {
  // A: memsize 5,000,000 for 1,000 objects = 4,960,000 outside slots, above
  // malloc's 4,000,000 in use: outside objects clamped to 0. C: 5,100,000 -
  // 80,000 = 5,020,000 owned; outside = 65,020,000 - 5,020,000 = 60,000,000.
  auto memory = [](std::uint64_t rss, std::uint64_t in_use, std::uint64_t free_held) {
    DumpMemory m;
    m.rss = rss;  // no anonymous: file-backed unknown
    m.slot_size = 40;
    m.pages_from_malloc = false;
    m.allocator = "glibc";
    m.malloc_in_use = in_use;
    m.malloc_free_held = free_held;
    return m;
  };
  const MemoryDump a{"A", {1'000, 5'000'000}, memory(50'000'000, 4'000'000, 1'000'000)};
  const MemoryDump c{"C", {2'000, 5'100'000}, memory(120'000'000, 65'020'000, 2'000'000)};
  const MemoryAccounting acc = account_memory({a, c});
  CHECK(acc.ruby_objects == 100'000);
  CHECK_FALSE(acc.file_backed);
  CHECK_FALSE(acc.free_heap_slots);
  CHECK(acc.malloc_outside_objects == 60'000'000);
  CHECK(acc.malloc_free_held == 1'000'000);
  CHECK(acc.unexplained == 8'900'000);  // 70,000,000 - 61,100,000
  CHECK(acc.verdict == MemoryVerdict::nativeMemory);
  CHECK(acc.verdict_line ==
        "native memory held by objects: malloc in use outside what the objects' memsize counts "
        "grew most (86% of the RSS growth from A to C)");
  CHECK(acc.what_to_try.find("DATA objects") != std::string::npos);
  REQUIRE(acc.notes.size() == 2);
  CHECK(acc.notes[0] == "the free heap slots' bytes were not recorded");
  CHECK(acc.notes[1].rfind("in A, the objects' memsize", 0) == 0);
  CHECK(acc.notes[1].find("clamped to 0") != std::string::npos);
}

TEST_CASE("malloc's bytes handed out may exceed what became resident: said, still native",
          "[memory]") {
  // Unclosed Zlib streams measured on Ruby 3.1: zlib's state malloc'd in
  // large chunks, mostly never written. RSS +30,000,000, in use outside
  // objects +80,000,000 (objects' memsize: 1,000 x 40 = 40,000 in slots
  // only), free held +400,000: unexplained = 30,000,000 - 80,440,000.
  auto memory = [](std::uint64_t rss, std::uint64_t in_use, std::uint64_t free_held) {
    DumpMemory m;
    m.rss = rss;
    m.slot_size = 40;
    m.pages_from_malloc = false;
    m.allocator = "glibc";
    m.malloc_in_use = in_use;
    m.malloc_free_held = free_held;
    return m;
  };
  const MemoryDump a{"A", {1'000, 40'000}, memory(16'000'000, 6'000'000, 500'000)};
  const MemoryDump c{"C", {2'000, 80'000}, memory(46'000'000, 86'000'000, 900'000)};
  const MemoryAccounting acc = account_memory({a, c});
  CHECK(acc.ruby_objects == 40'000);
  CHECK(acc.malloc_outside_objects == 80'000'000);
  CHECK(acc.unexplained == -50'440'000);
  CHECK(acc.verdict == MemoryVerdict::nativeMemory);
  REQUIRE(acc.notes.size() == 2);
  CHECK(acc.notes[1].rfind("the parts add up to more than RSS grew", 0) == 0);
  CHECK(acc.verdict_line ==
        "native memory held by objects: malloc in use outside what the objects' memsize counts "
        "grew most (more than all of the RSS growth from A to C)");
}

TEST_CASE("without manifests: the heap's own growth, and that RSS was not recorded", "[memory]") {
  const MemoryDump a{"A", {10'000, 1'000'000}, std::nullopt};
  const MemoryDump c{"C", {12'500, 1'300'000}, std::nullopt};
  const MemoryAccounting acc = account_memory({a, c});
  CHECK(acc.objects_growth == 2'500);
  CHECK(acc.ruby_objects == 300'000);
  CHECK_FALSE(acc.rss_growth);
  CHECK_FALSE(acc.unexplained);
  CHECK(acc.verdict == MemoryVerdict::notEnoughFigures);
  CHECK(acc.verdict_line ==
        "RSS was not recorded for A and C (no version 2 capture manifests): only the Ruby "
        "heap's own growth is known");
  // A version 2 manifest at one end only is no better.
  const MemoryDump c2{"C", {12'500, 1'300'000}, ruby31(90 * MiB, 80 * MiB, 0, 0, 0, 0)};
  CHECK(account_memory({a, c2}).verdict == MemoryVerdict::notEnoughFigures);
  CHECK(account_memory({a}).verdict == MemoryVerdict::notEnoughFigures);
}

TEST_CASE("under a megabyte of growth is no growth", "[memory]") {
  const MemoryDump a{"A", {1'000, 100'000}, ruby31(100 * MiB, 80 * MiB, 0, 0, 0, 0)};
  const MemoryDump c{
      "C", {1'000, 100'000}, ruby31(100 * MiB + 500'000, 80 * MiB + 500'000, 0, 0, 0, 0)};
  const MemoryAccounting acc = account_memory({a, c});
  CHECK(acc.rss_growth == 500'000);
  CHECK(acc.verdict == MemoryVerdict::noGrowth);
  CHECK(acc.verdict_line == "RSS did not grow from A to C");
  CHECK(acc.what_to_try.empty());
}

TEST_CASE("malloc's figures missing or from two allocators are not compared", "[memory]") {
  DumpMemory m0 = ruby31(100 * MiB, 80 * MiB, 0, 0, 0, 0);
  DumpMemory m1 = ruby31(200 * MiB, 180 * MiB, 0, 0, 0, 0);
  m0.allocator.clear();
  m1.allocator.clear();
  const MemoryDump a{"A", {1'000, 100'000}, m0};
  const MemoryDump c{"C", {1'000, 100'000}, m1};
  MemoryAccounting acc = account_memory({a, c});
  CHECK_FALSE(acc.malloc_outside_objects);
  CHECK_FALSE(acc.malloc_free_held);
  CHECK(acc.unexplained == 100 * MiB);
  CHECK(acc.verdict == MemoryVerdict::notEnoughFigures);
  CHECK(acc.verdict_line.find("malloc's figures were not recorded") != std::string::npos);

  m0.allocator = "glibc";
  m1.allocator = "jemalloc";
  acc = account_memory(
      {MemoryDump{"A", {1'000, 100'000}, m0}, MemoryDump{"C", {1'000, 100'000}, m1}});
  CHECK_FALSE(acc.malloc_free_held);
  REQUIRE(acc.notes.size() == 1);
  CHECK(acc.notes[0] ==
        "the allocator differs between A (glibc) and C (jemalloc): malloc's figures are not "
        "compared");
}

TEST_CASE("jemalloc's held pages and the heap's free pages have their own advice", "[memory]") {
  DumpMemory m0 = ruby31(100 * MiB, 90 * MiB, 0, 0, 0, 1 * MiB);
  DumpMemory m1 = ruby31(200 * MiB, 190 * MiB, 0, 0, 0, 91 * MiB);
  m0.allocator = m1.allocator = "jemalloc";
  MemoryAccounting acc = account_memory({MemoryDump{"A", {0, 0}, m0}, MemoryDump{"C", {0, 0}, m1}});
  CHECK(acc.verdict == MemoryVerdict::fragmentation);
  CHECK(acc.verdict_line ==
        "bloat, not a leak: jemalloc holds freed memory (dirty pages) (90% of the RSS growth "
        "from A to C)");
  CHECK(acc.what_to_try.find("dirty_decay_ms") != std::string::npos);

  // 60 MiB of free slots in pages kept after a spike (pages from malloc, so
  // malloc's in use grows by the pages too and nothing is outside objects).
  m0 = ruby31(100 * MiB, 90 * MiB, 1 * MiB, 2 * MiB, 2 * MiB, 0);
  m1 = ruby31(170 * MiB, 160 * MiB, 61 * MiB, 64 * MiB, 64 * MiB, 0);
  acc = account_memory({MemoryDump{"A", {0, 0}, m0}, MemoryDump{"C", {0, 0}, m1}});
  CHECK(acc.free_heap_slots == 60 * MiB);
  CHECK(acc.malloc_outside_objects == 0);
  CHECK(acc.unexplained == 10 * MiB);
  CHECK(acc.verdict == MemoryVerdict::heapPages);
  CHECK(acc.what_to_try.find("GC.compact") != std::string::npos);
}

TEST_CASE("a heap's own figures: its objects and the sum of their memsize", "[memory]") {
  auto heap = load_text(join_lines({
      object_line({"0x1000", "STRING", "", {}, "\"memsize\":40"}),
      object_line({"0x1028", "ARRAY", "", {"0x1000"}, "\"memsize\":1064"}),
      object_line({"0x1050", "DATA", "", {}, "\"memsize\":312"}),
  }));
  const DumpSummary figures = summary_of(*heap);
  CHECK(figures.objects == 3);
  CHECK(figures.bytes == 1416);
}
