#include "core/loading/memory_fit.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

#include "core/base/memory_headroom.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using heapleak::test::TempFile;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// `lines` object lines of about 150-450 bytes each (lengths and values vary,
// so a gzip copy compresses like a dump rather than like one repeated line).
std::string dump_lines(std::uint64_t lines) {
  std::string text;
  std::uint64_t state = 12345;
  for (std::uint64_t k = 0; k < lines; ++k) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const std::size_t value = 40 + (state >> 33) % 300;
    text += R"({"address":"0x)" + std::to_string(0x7f0000000000 + k * 40) +
            R"(", "type":"STRING", "class":"0x7f00000001", "bytesize":)" + std::to_string(value) +
            R"(, "value":")";
    for (std::size_t c = 0; c < value; ++c)
      text += static_cast<char>('a' + (state >> (c % 40)) % 26);
    text += "\"}\n";
  }
  return text;
}

bool within(std::uint64_t estimate, std::uint64_t truth, double fraction) {
  return estimate >= truth * (1 - fraction) && estimate <= truth * (1 + fraction);
}

}  // namespace

TEST_CASE("dump objects: counted in a small file, estimated from samples in a large one", "[fit]") {
  SECTION("a small plain file is counted exactly") {
    TempFile dump(dump_lines(1000));
    CHECK(estimate_dump_objects(dump.path()) == std::optional<std::uint64_t>(1000));
  }
  SECTION("a small gzip file is inflated to its end: exact") {
    TempFile dump(dump_lines(1000), true);
    CHECK(estimate_dump_objects(dump.path()) == std::optional<std::uint64_t>(1000));
  }
  SECTION("a large plain file: three 1 MiB windows, within 5%") {
    TempFile dump(dump_lines(60000));  // ~17 MiB
    const auto objects = estimate_dump_objects(dump.path());
    REQUIRE(objects);
    CHECK(within(*objects, 60000, 0.05));
  }
  SECTION("a large gzip file: its first 8 MiB, ratio and lines, within 10%") {
    TempFile dump(dump_lines(60000), true);
    const auto objects = estimate_dump_objects(dump.path());
    REQUIRE(objects);
    INFO("estimated " << *objects);
    CHECK(within(*objects, 60000, 0.10));
  }
  SECTION("a gzip file cut short: its last four bytes (any value) are not believed") {
    TempFile whole(dump_lines(60000), true);
    std::ifstream in(whole.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes.resize(bytes.size() * 7 / 10);
    bytes.replace(bytes.size() - 4, 4, "\xff\xff\xff\xff");  // ~4 GiB if read as ISIZE
    TempFile cut("");
    std::ofstream(cut.path(), std::ios::binary | std::ios::trunc) << bytes;
    const auto objects = estimate_dump_objects(cut.path());
    REQUIRE(objects);
    INFO("estimated " << *objects);
    CHECK(within(*objects, 42000, 0.15));
  }
  SECTION("what cannot be read is not estimated") {
    CHECK_FALSE(estimate_dump_objects("/nonexistent/B.json"));
    TempFile empty("");
    CHECK((!estimate_dump_objects(empty.path()) || *estimate_dump_objects(empty.path()) == 0));
  }
}

TEST_CASE("fit: the loads' low estimate against the headroom", "[fit]") {
  TempFile a(dump_lines(8000)), b(dump_lines(8000));  // under 3 MiB: counted
  const std::vector<PlannedLoad> explain{{a.path(), LoadMode::kIdentityOnly},
                                         {b.path(), LoadMode::kFull},
                                         {a.path(), LoadMode::kIdentityOnly}};
  const FitVerdict roomy = judge_fit(explain, 32 * kMiB);
  CHECK(roomy.fits);
  CHECK(roomy.objects == 24000);
  // A full load counts more than an identity-only one; each more than nothing.
  CHECK(low_load_bytes(8000, LoadMode::kFull) > low_load_bytes(8000, LoadMode::kIdentityOnly));
  CHECK(roomy.needed == 24 * kMiB + low_load_bytes(8000, LoadMode::kFull) +
                            2 * low_load_bytes(8000, LoadMode::kIdentityOnly));
  const FitVerdict tight = judge_fit(explain, 20 * kMiB);  // needs ~25 MiB
  CHECK_FALSE(tight.fits);
  CHECK(tight.needed == roomy.needed);
  CHECK(tight.headroom == 20 * kMiB);
  const std::string message = fit_refusal_message(tight);
  CHECK(message.find("20 MiB is left") != std::string::npos);
  CHECK(message.find("Run it with the cache") != std::string::npos);
  // The heap whose dominator tree and root paths the run computes counts
  // what they keep too.
  auto analysed = explain;
  analysed[1].analysed = true;
  CHECK(judge_fit(analysed, 32 * kMiB).needed == roomy.needed + 8000 * 20);
  // Nothing known of the headroom: it fits; nothing to load: it fits.
  CHECK(judge_fit(explain, UINT64_MAX).fits);
  CHECK(judge_fit({}, 0).fits);
  // A dump that cannot be read counts for nothing (its load says why).
  const FitVerdict missing = judge_fit({{"/nonexistent/B.json", LoadMode::kFull}}, 30 * kMiB);
  CHECK(missing.fits);
  CHECK(missing.objects == 0);
  // The measured scale (bench/README.md): explain on three 11 GB dumps of
  // ~35.7 M objects each does not fit 4 GB; on syn1700's 6 M it does.
  const std::uint64_t big = 35700000, syn1700 = 6100000;
  CHECK(low_load_bytes(big, LoadMode::kFull) + 2 * low_load_bytes(big, LoadMode::kIdentityOnly) >
        std::uint64_t{4} << 30);
  // explain on syn1700 (B analysed) stays under what it peaked at.
  CHECK(low_load_bytes(syn1700, LoadMode::kFull) + 20 * syn1700 +
            2 * low_load_bytes(syn1700, LoadMode::kIdentityOnly) <
        std::uint64_t{1184} * kMiB);
  CHECK(low_load_bytes(syn1700, LoadMode::kFull) +
            2 * low_load_bytes(syn1700, LoadMode::kIdentityOnly) <
        std::uint64_t{1184} * kMiB);  // what it was measured to peak at
}

TEST_CASE("memory headroom: a cgroup's page cache is not counted as used", "[fit][memory]") {
  const std::string meminfo = "MemAvailable:   20971520 kB\n";
  const std::uint64_t GiB = std::uint64_t{1} << 30;
  // 4 GiB limit, 3 GiB charged of which 2 GiB file pages (a dump just read).
  const std::string stat =
      "cache 2147483648\nrss 1073741824\nactive_file 1073741824\ninactive_file 1073741824\n";
  CHECK(memory_headroom_bytes(meminfo, "4294967296\n", "3221225472\n", stat) == 3 * GiB);
  CHECK(memory_headroom_bytes(meminfo, "4294967296\n", "3221225472\n", "") == 1 * GiB);
  // More file pages than usage (stat read a moment later): nothing used.
  CHECK(memory_headroom_bytes(meminfo, "4294967296\n", "1024\n", stat) == 4 * GiB);
}
