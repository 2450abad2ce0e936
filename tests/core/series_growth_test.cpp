// explain over N >= 4 dumps: each row's holder read in every dump, the
// intervals it grew in, and the rows that grew in every interval first.
#include "core/series/series_growth.h"

#include <catch2/catch.hpp>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

using Counts = std::vector<std::optional<std::uint64_t>>;

// A dump with two Arrays of class 0x10: 0x100 of `steady` entries and 0x200
// of `once` entries (either left out when nullopt), each with that length.
std::string dump(std::optional<std::uint64_t> steady, std::optional<std::uint64_t> once) {
  std::vector<std::string> lines{class_line("0x10", "Array")};
  std::vector<std::string> roots;
  for (auto [address, length] : {std::pair{"0x100", steady}, std::pair{"0x200", once}}) {
    if (!length) continue;
    roots.push_back(address);
    lines.push_back(object_line({address,
                                 "ARRAY",
                                 "0x10",
                                 {},
                                 "\"length\":" + std::to_string(*length) +
                                     ", \"memsize\":" + std::to_string(40 + 8 * *length)}));
  }
  lines.push_back(root_line("vm", roots));
  return join_lines(lines);
}

LeakCluster row_of(const Heap& target, const std::string& holder, const std::string& key) {
  LeakCluster row;
  row.holder = index_of(target, holder);
  row.key = key;
  return row;
}

}  // namespace

TEST_CASE("an interval grew when both ends are known and the later is larger", "[series_growth]") {
  CHECK(intervals_grown(Counts{120, 240, 360, 480, 600}) == 4);
  CHECK(grew_every_interval(Counts{120, 240, 360, 480, 600}));
  CHECK(intervals_grown(Counts{0, 2000, 2000, 2000, 2000}) == 1);
  CHECK_FALSE(grew_every_interval(Counts{0, 2000, 2000, 2000, 2000}));
  // Flat or shrinking is not growth; an unknown end is not either.
  CHECK(intervals_grown(Counts{5, 5, 4, 6}) == 1);
  CHECK(intervals_grown(Counts{std::nullopt, 10, 20, 30}) == 2);
  CHECK_FALSE(grew_every_interval(Counts{std::nullopt, 10, 20, 30}));
  // One dump has no interval: never "every interval".
  CHECK_FALSE(grew_every_interval(Counts{7}));
  CHECK_FALSE(grew_every_interval(Counts{}));
}

TEST_CASE("each row's holder is read in every dump; the rows that grew in every interval go first",
          "[series_growth]") {
  // D1..D5: 0x100 grows 120 a dump; 0x200 (a warm-up cache) grows once,
  // then stops; D1 has no 0x200 at all.
  const auto d1 = load_text(dump(120, std::nullopt));
  const auto d2 = load_text(dump(240, 2000));
  const auto d3 = load_text(dump(360, 2000));
  const auto d4 = load_text(dump(480, 2000));  // the target, D(N-1)
  const auto d5 = load_text(dump(600, 2000));
  const std::vector<const Heap*> dumps{d1.get(), d2.get(), d3.get(), d4.get(), d5.get()};

  LeakClusters clusters;
  // By retained, the warm-up cache came first; a holderless row third.
  clusters.leaks.push_back(row_of(*d4, "0x200", "warm-up"));
  clusters.leaks.push_back(row_of(*d4, "0x100", "steady"));
  LeakCluster rootless;
  rootless.key = "held by ROOT vm";
  clusters.leaks.push_back(rootless);
  clusters.noise.push_back(row_of(*d4, "0x200", "noise"));
  add_series_growth(*d4, dumps, clusters);

  REQUIRE(clusters.leaks.size() == 3);
  CHECK(clusters.leaks[0].key == "steady");
  CHECK(clusters.leaks[0].series == Counts{120, 240, 360, 480, 600});
  CHECK(clusters.leaks[0].series_bytes == Counts{1000, 1960, 2920, 3880, 4840});
  CHECK(clusters.leaks[1].key == "warm-up");  // the rest keep their order
  CHECK(clusters.leaks[1].series == Counts{std::nullopt, 2000, 2000, 2000, 2000});
  CHECK(intervals_grown(clusters.leaks[1].series) == 0);
  CHECK(clusters.leaks[2].key == "held by ROOT vm");
  CHECK(clusters.leaks[2].series == Counts(5, std::nullopt));
  // Noise rows get their growth too, and stay where they are.
  CHECK(clusters.noise[0].series == clusters.leaks[1].series);
}

TEST_CASE("a container replaced at the holder's address is not read as the holder",
          "[series_growth]") {
  const auto target = load_text(dump(480, std::nullopt));
  const auto other = load_text(join_lines(
      {class_line("0x10", "Array"), class_line("0x11", "Hash"),
       object_line({"0x100", "HASH", "0x11", {}, R"("size":9)"}), root_line("vm", {"0x100"})}));
  const ObjectIndex holder = index_of(*target, "0x100");
  CHECK(size_in_dump(*target, holder, *target) == 480);
  CHECK_FALSE(size_in_dump(*target, holder, *other));
}
