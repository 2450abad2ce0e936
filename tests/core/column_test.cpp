// Column's storage operations for the loader's big arrays: adopting another
// column's pages, giving back the unused ones, appending another column's
// pages by moving them (a split load's second half, HeapBuilder::absorb).
#include "core/base/column.h"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

using namespace heapleak;

namespace {

const std::size_t kPage = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

// Values 0, 1, 2... from `first` on.
Column<std::uint64_t> counting(std::size_t n, std::uint64_t first, std::size_t room) {
  Column<std::uint64_t> column;
  column.reserve(room);
  for (std::size_t k = 0; k < n; ++k) column.push_back(first + k);
  return column;
}

}  // namespace

TEST_CASE("a column adopts another's storage, and gives back its unused pages", "[column]") {
  SECTION("mapped storage (a large column)") {
    Column<std::uint64_t> wide(std::size_t{1} << 20, 7);  // 8 MiB: mmap'ed
    const void* storage = wide.data();
    Column<std::uint32_t> narrow;
    narrow.adopt_storage(wide);
    CHECK(wide.empty());
    CHECK(wide.capacity() == 0);
    CHECK(narrow.empty());
    CHECK(narrow.data() == storage);
    CHECK(narrow.capacity() == std::size_t{2} << 20);
    narrow.assign(std::size_t{2} << 20, 3);  // fills the whole buffer: no reallocation
    CHECK(narrow.data() == storage);
    CHECK(narrow[(std::size_t{2} << 20) - 1] == 3);

    narrow.resize(1000);
    narrow.release_unused_pages();
    for (std::uint32_t value : narrow) REQUIRE(value == 3);
    std::vector<unsigned char> pages(((std::size_t{8} << 20) - (1 << 16)) / kPage);
    REQUIRE(::mincore(const_cast<std::uint32_t*>(narrow.data()) + (1 << 14), pages.size() * kPage,
                      pages.data()) == 0);
    std::size_t resident = 0;
    for (unsigned char page : pages) resident += page & 1;
    CHECK(resident == 0);
    narrow.resize(std::size_t{2} << 20);  // the pages come back as zeros, then filled
    CHECK(narrow.back() == 0);
  }
  SECTION("heap storage (a small column)") {
    Column<std::uint64_t> wide(10, 1);
    Column<std::uint32_t> narrow;
    narrow.adopt_storage(wide);
    CHECK(narrow.capacity() == 20);
    narrow.release_unused_pages();  // not mapped: nothing to give back
    narrow.assign(25, 9);           // past the adopted room: grows as any column does
    CHECK(narrow.size() == 25);
    CHECK(narrow[24] == 9);
  }
}

TEST_CASE("a column appends another's pages, moved not copied", "[column]") {
  const std::size_t per_page = kPage / sizeof(std::uint64_t);
  const std::size_t mapped_room = std::size_t{1} << 20;  // 8 MiB: mmap'ed
  const std::size_t head = 37 * per_page;                // ends on a page boundary
  SECTION("mapped, page-aligned, with room: the pages move") {
    auto to = counting(head, 0, 4 * mapped_room);
    auto from = counting(300001, head, mapped_room);  // its last page partly used
    const std::uint64_t* room = to.data();
    REQUIRE(to.append_pages(from));
    CHECK(from.empty());
    CHECK(from.capacity() == 0);
    CHECK(to.data() == room);
    REQUIRE(to.size() == head + 300001);
    for (std::size_t k = 0; k < to.size(); ++k) REQUIRE(to[k] == k);
    // It goes on as any column: the page after the moved ones, then past its room.
    to.push_back(to.size());
    to.resize(4 * mapped_room + 5, 9);
    CHECK(to[head + 300001] == head + 300001);
    CHECK(to[head + 300000] == head + 300000);
    CHECK(to.back() == 9);
    to.resize(head + 1);
    to.release_unused_pages();
    CHECK(to[head] == head);
  }
  SECTION("otherwise nothing changes, and the caller copies") {
    auto from = counting(1000, 5000, mapped_room);
    auto unaligned = counting(head + 1, 0, 4 * mapped_room);
    CHECK_FALSE(unaligned.append_pages(from));
    auto small = counting(head, 0, head + 2000);  // 300 KiB: not mapped
    CHECK_FALSE(small.append_pages(from));
    auto full = counting(head, 0, mapped_room);
    auto too_many = counting(mapped_room - head + 1, 0, mapped_room);
    CHECK_FALSE(full.append_pages(too_many));
    auto unmapped_from = counting(10, 0, 10);
    CHECK_FALSE(full.append_pages(unmapped_from));
    REQUIRE(from.size() == 1000);
    CHECK(from[999] == 5999);
    CHECK(unaligned.size() == head + 1);
    CHECK(small.size() == head);
    CHECK(full.size() == head);
    CHECK(too_many.size() == mapped_room - head + 1);
  }
}

TEST_CASE("a column trades buffers with a spare, when both are mapped and the spare keeps room",
          "[column]") {
  const std::size_t n = std::size_t{3} << 20;  // 12 MiB of uint32: mapped
  Column<std::uint64_t> spare;
  spare.reserve(n + 1);
  auto* gathered = reinterpret_cast<std::uint32_t*>(spare.data());
  for (std::size_t k = 0; k < n; ++k) gathered[k] = static_cast<std::uint32_t>(k * 3);
  SECTION("a narrow column's buffer cannot keep n + 1 wide values: refused, nothing changes") {
    Column<std::uint32_t> narrow(n, 7);
    const void* before = narrow.data();
    CHECK_FALSE(narrow.trade_storage(spare, n, n + 1));
    CHECK(narrow.data() == before);
    CHECK(narrow.size() == n);
    CHECK(spare.data() == static_cast<void*>(gathered));
  }
  SECTION("a buffer that keeps them: traded, the values where the spare had them") {
    Column<std::uint32_t> narrow(n, 7);
    const void* old = narrow.data();
    REQUIRE(narrow.trade_storage(spare, n, n / 2));
    CHECK(narrow.data() == static_cast<void*>(gathered));
    REQUIRE(narrow.size() == n);
    CHECK(narrow[n - 1] == (n - 1) * 3);
    CHECK(spare.data() == old);
    CHECK(spare.empty());
    CHECK(spare.capacity() * sizeof(std::uint64_t) >= n * sizeof(std::uint32_t));
    narrow.release_unused_pages();  // the wider buffer's tail
    CHECK(narrow[12345] == 12345u * 3);
    // Both go on as any column: grow, fill, free (ASan checks the unmapping).
    spare.assign(n / 2, 9);
    narrow.resize(4 * n, 1);
    CHECK(narrow.back() == 1u);
    CHECK(spare.back() == 9u);
  }
  SECTION("a small (heap) buffer is never traded") {
    Column<std::uint32_t> small(100, 1);
    CHECK_FALSE(small.trade_storage(spare, 100, 0));
    CHECK(small.size() == 100);
  }
}
