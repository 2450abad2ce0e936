#include "core/reading/prefaulter.h"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/base/column.h"
#include "core/loading/loader.h"
#include "core/reading/line_pipeline.h"
#include "tests/core/smaps.h"
#include "tests/core/test_dump.h"

using namespace heapleak;

namespace {

const std::size_t kPage = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

// Plain 4 KiB pages (no MADV_HUGEPAGE), so residency is exact per page.
struct Mapping {
  explicit Mapping(std::size_t bytes) : size(bytes) {
    base = static_cast<char*>(
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(base != MAP_FAILED);
    ::madvise(base, bytes, MADV_NOHUGEPAGE);
  }
  ~Mapping() { ::munmap(base, size); }
  // Resident pages in [from, to) bytes.
  std::size_t resident(std::size_t from, std::size_t to) const {
    std::vector<unsigned char> pages((to - from + kPage - 1) / kPage);
    REQUIRE(::mincore(base + from, to - from, pages.data()) == 0);
    std::size_t count = 0;
    for (unsigned char page : pages) count += page & 1;
    return count;
  }
  char* base;
  std::size_t size;
};

// The prefaulter works on its own thread: wait (bounded) for what it should do.
bool eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

std::map<std::string, std::vector<std::uint64_t>> column_values(const Heap& heap) {
  std::map<std::string, std::vector<std::uint64_t>> out;
  for_each_column(heap.columns(), [&](const char* name, const auto& column) {
    auto& values = out[name];
    for (const auto& value : column) values.push_back(static_cast<std::uint64_t>(value));
  });
  return out;
}

}  // namespace

TEST_CASE("the prefaulter populates just ahead of what is written, or all of an array",
          "[prefaulter]") {
  if (!Prefaulter::supported()) {
    WARN("not checked: this kernel has no MADV_POPULATE_WRITE (Linux < 5.14)");
    return;
  }
  const std::size_t ahead = 64 * kPage;
  Mapping memory(1024 * kPage);
  Prefaulter prefaulter(ahead);
  CHECK(memory.resident(0, memory.size) == 0);

  SECTION("ahead of the written bytes, never past the reservation") {
    const Prefaulter::Range range{memory.base, 100 * kPage, 1024 * kPage};
    prefaulter.advance({&range, 1});
    REQUIRE(eventually([&] { return memory.resident(100 * kPage, 164 * kPage) == 64; }));
    CHECK(memory.resident(0, 100 * kPage) == 0);  // behind the writer: its own business
    CHECK(memory.resident(164 * kPage, memory.size) == 0);
    // Near the end of the reservation it stops there.
    const Prefaulter::Range later{memory.base, 1000 * kPage, 1010 * kPage};
    prefaulter.advance({&later, 1});
    REQUIRE(eventually([&] { return memory.resident(1000 * kPage, 1010 * kPage) == 10; }));
    CHECK(memory.resident(1010 * kPage, memory.size) == 0);
  }
  SECTION("a whole array about to be filled") {
    const Prefaulter::Range range{memory.base, 0, 512 * kPage, /*whole=*/true};
    prefaulter.advance({&range, 1});
    REQUIRE(eventually([&] { return memory.resident(0, 512 * kPage) == 512; }));
    CHECK(memory.resident(512 * kPage, memory.size) == 0);
  }
  SECTION("a range that was unmapped meanwhile is harmless, and later ranges still served") {
    char* gone = static_cast<char*>(
        ::mmap(nullptr, 256 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(gone != MAP_FAILED);
    ::munmap(gone, 256 * kPage);
    const Prefaulter::Range ranges[] = {{gone, 0, 256 * kPage, true},
                                        {memory.base, 0, 32 * kPage, true}};
    prefaulter.advance(ranges);
    REQUIRE(eventually([&] { return memory.resident(0, 32 * kPage) == 32; }));
  }
  SECTION("the values written are never touched") {
    std::memset(memory.base, 0x5a, 8 * kPage);
    const Prefaulter::Range range{memory.base, 0, 128 * kPage, true};
    prefaulter.advance({&range, 1});
    REQUIRE(eventually([&] { return memory.resident(0, 128 * kPage) == 128; }));
    for (std::size_t i = 0; i < 8 * kPage; ++i) REQUIRE(memory.base[i] == 0x5a);
    CHECK(memory.base[8 * kPage] == 0);
  }
}

// The VmFlags of the mapping holding `address` ("hg": marked
// MADV_HUGEPAGE), or "" when no mapping holds it.
static std::string mapping_flags(const void* address) {
  const std::string flags = test::smaps_field(address, "VmFlags");
  return flags.empty() ? flags : flags + " ";
}

TEST_CASE("large columns and blocks take huge pages as HEAPLEAK_HUGEPAGES says", "[column]") {
  // Unforced, core/base/huge_pages.h decides by the free memory of the moment.
  for (const char* setting : {"1", "0"}) {
    INFO("HEAPLEAK_HUGEPAGES=" << setting);
    test::ScopedEnv forced("HEAPLEAK_HUGEPAGES", setting);
    const bool huge = std::string(setting) == "1";
    Column<std::uint64_t> large(std::size_t{1} << 20, 1);  // 8 MiB: mapped
    const std::string flags = mapping_flags(large.data());
    REQUIRE_FALSE(flags.empty());
    CHECK((flags.find(" hg ") != std::string::npos) == huge);

    BlockBuffer block;
    block.grow(std::size_t{4} << 20, 0);
    CHECK((mapping_flags(block.data()).find(" hg ") != std::string::npos) == huge);
  }
}

TEST_CASE("a load with the prefaulter builds the same heap as one without",
          "[prefaulter][loader]") {
  const std::string path = std::string(HEAPLEAK_TEST_DATA_DIR) + "/rbheap-3dump/heap2.jsonl.gz";
  LoadOptions with, without;
  with.prefault_from_bytes = 0;
  with.block_size = 64 << 10;  // many blocks, so many advances
  without.prefault_from_bytes = UINT64_MAX;
  auto a = load_heap(path, with);
  auto b = load_heap(path, without);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE((*a)->size() > 1000);
  CHECK(column_values(**a) == column_values(**b));
  CHECK((*a)->report().references == (*b)->report().references);
}
