#include "core/loading/load_memory_guard.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/loading/loader.h"
#include "tests/core/test_dump.h"

using namespace heapleak;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// A guard whose headroom is whatever `left` says at each look, counting looks.
struct FakeMachine {
  std::uint64_t left = 0;
  int looks = 0;
  LoadMemoryGuard guard(std::uint64_t low_need = 0) {
    return LoadMemoryGuard(
        "/d/B.json", [low_need] { return low_need; },
        [this] {
          ++looks;
          return left;
        });
  }
};

}  // namespace

TEST_CASE("a load whose low estimate exceeds what is left stops at its first look",
          "[load_memory_guard]") {
  FakeMachine machine{1000 * kMiB};
  LoadMemoryGuard guard = machine.guard(1200 * kMiB);
  CHECK_FALSE(guard.still_fits(4 * kMiB, 4000 * kMiB));
  CHECK(guard.reason().find("/d/B.json: loading needs at least 1200 MiB but only 1000 MiB") == 0);

  LoadMemoryGuard fits = machine.guard(1000 * kMiB);
  CHECK(fits.still_fits(4 * kMiB, 4000 * kMiB));
  CHECK(fits.reason().empty());
}

TEST_CASE("the low estimate is asked once, at the first look, and never without one",
          "[load_memory_guard]") {
  int asked = 0;
  {
    LoadMemoryGuard unused(
        "x", [&asked] { return ++asked, std::uint64_t{0}; }, [] { return UINT64_MAX; });
  }
  CHECK(asked == 0);  // a load served by a cache image never parses
  LoadMemoryGuard guard(
      "x", [&asked] { return ++asked, std::uint64_t{0}; }, [] { return 100 * kMiB; });
  for (std::uint64_t done = 4 * kMiB; done < 400 * kMiB; done += 4 * kMiB)
    guard.still_fits(done, 400 * kMiB);
  CHECK(asked == 1);
}

TEST_CASE("no known headroom never refuses or stops a load", "[load_memory_guard]") {
  FakeMachine machine{UINT64_MAX};
  LoadMemoryGuard guard = machine.guard(UINT64_MAX - 1);
  CHECK(guard.still_fits(4 * kMiB, 1000 * kMiB));
  CHECK(guard.still_fits(1000 * kMiB, 1000 * kMiB));
}

TEST_CASE("a load on course to fit goes on to its end", "[load_memory_guard]") {
  // 2000 MiB left; the load takes 0.25 byte per byte of a 4000 MiB file:
  // 1000 MiB, 1300 with the finish: fits.
  FakeMachine machine{2000 * kMiB};
  LoadMemoryGuard guard = machine.guard();
  for (std::uint64_t done = 4 * kMiB; done <= 4000 * kMiB; done += 4 * kMiB) {
    machine.left = 2000 * kMiB - (done - 4 * kMiB) / 4;
    REQUIRE(guard.still_fits(done, 4000 * kMiB));
  }
  // Looked at every 32 MiB of the file, not at every block.
  CHECK(machine.looks <= 1 + 4000 / 32 + 1);
  CHECK(machine.looks >= 4000 / 32 - 1);
}

TEST_CASE("a load on course to need more than was left stops early, saying why",
          "[load_memory_guard]") {
  // 1000 MiB left; the load takes 0.5 byte per byte of a 4000 MiB file:
  // ~2400 MiB with the finish. It stops once a tenth of the file has been
  // read after the look at a tenth, long before the memory runs out.
  FakeMachine machine{1000 * kMiB};
  LoadMemoryGuard guard = machine.guard();
  std::uint64_t stopped_at = 0;
  for (std::uint64_t done = 4 * kMiB; done <= 4000 * kMiB; done += 4 * kMiB) {
    machine.left = 1000 * kMiB - (done - 4 * kMiB) / 2;
    if (!guard.still_fits(done, 4000 * kMiB)) {
      stopped_at = done;
      break;
    }
  }
  REQUIRE(stopped_at != 0);
  CHECK(stopped_at >= 800 * kMiB);              // not before a fifth of the file
  CHECK(stopped_at <= 800 * kMiB + 64 * kMiB);  // at the look after it
  CHECK(machine.left > 500 * kMiB);             // while half the memory is still free
  CHECK(guard.reason().find("on course to need about 2") != std::string::npos);
  CHECK(guard.reason().find("only 1000 MiB of memory was left when it began") != std::string::npos);
}

TEST_CASE("what a load takes as it starts is not scaled to the whole file", "[load_memory_guard]") {
  // 1000 MiB left; the load takes 300 MiB at once (blocks, the first pages
  // of its columns), then 0.15 byte per byte of a 4000 MiB file: 900 MiB in
  // all, 1080 with the finish factor... so give it 1200 MiB. Scaled from the
  // start, 300 MiB at a tenth would have read as 3000 MiB.
  FakeMachine machine{1200 * kMiB};
  LoadMemoryGuard guard = machine.guard();
  for (std::uint64_t done = 4 * kMiB; done <= 4000 * kMiB; done += 4 * kMiB) {
    machine.left = 1200 * kMiB - 300 * kMiB - done * 15 / 100;
    REQUIRE(guard.still_fits(done, 4000 * kMiB));
  }
  CHECK(guard.reason().empty());
}

TEST_CASE("a load stops when almost nothing is left, even before its course is known",
          "[load_memory_guard]") {
  // Something else took the memory while the head of the file was read.
  FakeMachine machine{3000 * kMiB};
  LoadMemoryGuard guard = machine.guard();
  REQUIRE(guard.still_fits(4 * kMiB, 4000 * kMiB));
  machine.left = 40 * kMiB;
  CHECK_FALSE(guard.still_fits(64 * kMiB, 4000 * kMiB));
  CHECK(guard.reason().find("only 40 MiB of memory was left after 64 MiB of 4000 MiB") !=
        std::string::npos);
}

TEST_CASE("a load that frees memory meanwhile is never stopped by its course",
          "[load_memory_guard]") {
  // 500 MiB left; 200 taken by a tenth of the file, 400 by half of it: on
  // course to need ~780 MiB, so stopped...
  for (const bool unloaded : {false, true}) {
    FakeMachine machine{500 * kMiB};
    LoadMemoryGuard guard = machine.guard();
    REQUIRE(guard.still_fits(4 * kMiB, 1000 * kMiB));
    machine.left = 300 * kMiB;
    REQUIRE(guard.still_fits(100 * kMiB, 1000 * kMiB));
    // ...unless another heap was unloaded meanwhile: more is left than at the start.
    machine.left = unloaded ? 900 * kMiB : 100 * kMiB;
    CHECK(guard.still_fits(500 * kMiB, 1000 * kMiB) == unloaded);
  }
}

TEST_CASE("the course is judged against what was left before the load began",
          "[load_memory_guard]") {
  FakeMachine machine{1000 * kMiB};
  LoadMemoryGuard guard = machine.guard();
  CHECK(guard.still_fits(4 * kMiB, 1000 * kMiB));
  machine.left = 1000 * kMiB - 400 * kMiB;  // 400 MiB by a tenth of the file: the rate's look
  CHECK(guard.still_fits(100 * kMiB, 1000 * kMiB));
  machine.left = 1000 * kMiB - 500 * kMiB;  // 100 MiB more by a fifth: ~1450 MiB in all
  CHECK_FALSE(guard.still_fits(200 * kMiB, 1000 * kMiB));
  CHECK(guard.reason().find("(500 MiB taken by 20% of the file)") != std::string::npos);
}

TEST_CASE("watch adds the guard to a load's own progress and charge", "[load_memory_guard]") {
  FakeMachine machine{1000 * kMiB};
  LoadMemoryGuard guard = machine.guard();
  std::vector<std::uint64_t> progressed;
  std::vector<std::uint64_t> charged;
  bool budget_says = true;
  LoadControl control;
  control.progress = [&](std::uint64_t done, std::uint64_t) { progressed.push_back(done); };
  control.charge = [&](std::uint64_t bytes) {
    charged.push_back(bytes);
    return budget_says;
  };
  guard.watch(control);
  CHECK(control.charge(1));  // the first look: nothing needed, 1000 MiB left
  control.progress(100 * kMiB, 1000 * kMiB);
  CHECK(control.charge(2));  // a tenth read: the rate's look
  // The guard sees the progress the load reported: 500 MiB taken by a fifth.
  machine.left = 500 * kMiB;
  control.progress(200 * kMiB, 1000 * kMiB);
  CHECK_FALSE(control.charge(3));
  CHECK(guard.reason().find("(500 MiB taken by 20% of the file)") != std::string::npos);
  // The load's own budget still decides first.
  budget_says = false;
  CHECK_FALSE(control.charge(4));
  CHECK(progressed == std::vector<std::uint64_t>{100 * kMiB, 200 * kMiB});
  CHECK(charged == std::vector<std::uint64_t>{1, 2, 3, 4});
}

TEST_CASE("a guard for a dump asks for the objects sampled in it", "[load_memory_guard]") {
  // 20,000 records: counted exactly in a file this small, and far less than
  // any machine has left, so the load runs with the guard on and ends whole.
  std::string text;
  for (int k = 0; k < 20000; ++k)
    text += test::object_line({"0x" + std::to_string(1000 + k), "OBJECT", "", {}}) + "\n";
  test::TempFile file(text);
  LoadMemoryGuard guard(file.path(), LoadMode::kFull);
  LoadControl control;
  guard.watch(control);
  auto heap = load_heap(file.path(), {.block_size = 64 << 10}, control);
  REQUIRE(heap);
  CHECK((*heap)->size() == 20000);
  CHECK(guard.reason().empty());
}
