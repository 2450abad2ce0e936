#include "core/loading/loader.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

std::string small_dump() {
  return join_lines({
      root_line("vm", {"0x100"}),
      class_line("0x10", "Foo"),
      object_line({"0x100", "ARRAY", "", {"0x200", "0x300"}}),
      object_line({"0x200", "OBJECT", "0x10", {}}),
      object_line({"0x300", "STRING", "", {}, R"("value":"hi", "memsize":40)"}),
  });
}

}  // namespace

TEST_CASE("plain and gzip dumps load the same heap; gzip is found by magic bytes", "[loader]") {
  TempFile plain(small_dump());
  TempFile gz(small_dump(), /*gzip=*/true);  // no .gz suffix: detection is by content
  auto a = load_heap(plain.path());
  auto b = load_heap(gz.path());
  REQUIRE(a);
  REQUIRE(b);
  CHECK_FALSE((*a)->report().gzip);
  CHECK((*b)->report().gzip);
  REQUIRE((*a)->size() == 4);
  REQUIRE((*b)->size() == 4);
  for (ObjectIndex i = 0; i < 4; ++i) {
    CHECK((*a)->address(i) == (*b)->address(i));
    CHECK((*a)->type(i) == (*b)->type(i));
    CHECK((*a)->line_offset(i) == (*b)->line_offset(i));
  }
  CHECK((*a)->roots().size() == 1);
}

TEST_CASE("broken lines are skipped, counted and reported by line number", "[loader]") {
  std::string text = small_dump();
  text += std::string("{\"address\":\"0x400\", \"type\":\"OBJECT\", \"method\":\"x") + '\0' +
          "\"}\n";                                              // line 6
  text += "garbage\n";                                          // line 7
  text += object_line({"0x500", "OBJECT", "0x10", {}}) + "\n";  // line 8
  text += R"({"address":"0x600", "type":"OBJ)";                 // line 9, cut
  auto heap = load_text(text);
  CHECK(heap->size() == 5);
  CHECK(heap->report().broken_lines == 3);
  CHECK(heap->report().first_broken_lines == std::vector<std::uint64_t>{6, 7, 9});
  CHECK(heap->find(0x500));
  CHECK_FALSE(heap->find(0x600));
}

TEST_CASE("a line longer than the read block is read whole", "[loader]") {
  std::vector<std::string> refs;
  for (int k = 0; k < 20000; ++k) refs.push_back("0x" + std::to_string(100000 + k));
  std::string text =
      join_lines({object_line({"0x100", "ARRAY", "", refs}), object_line({"0x200", "OBJECT"})});
  LoadOptions options;
  options.block_size = 4096;  // the first line is ~200 KB
  auto heap = load_text(text, options);
  CHECK(heap->size() == 2);
  CHECK(heap->report().broken_lines == 0);
  CHECK(heap->report().missing_references == 20000);
}

TEST_CASE("small read blocks split lines anywhere and still agree", "[loader]") {
  const std::string text = small_dump();
  for (std::size_t block : {std::size_t{1}, std::size_t{7}, std::size_t{64}}) {
    LoadOptions options;
    options.block_size = block;
    auto heap = load_text(text, options);
    CHECK(heap->size() == 4);
    CHECK(heap->report().broken_lines == 0);
    CHECK(heap->references(index_of(*heap, "0x100")).size() == 2);
  }
}

TEST_CASE("files that are not heap dumps get a clear error", "[loader]") {
  SECTION("missing file") {
    auto r = load_heap("/nonexistent/heap.json");
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kFileNotFound);
    CHECK_THAT(r.error().message, Catch::Contains("/nonexistent/heap.json"));
  }
  SECTION("directory") {
    auto r = load_heap("/tmp");
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kNotReadable);
  }
  SECTION("empty file") {
    TempFile empty("");
    auto r = load_heap(empty.path());
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kNotAHeapDump);
    CHECK_THAT(r.error().message, Catch::Contains("empty"));
  }
  SECTION("text that is not JSON") {
    TempFile text("hello\nworld\n");
    auto r = load_heap(text.path());
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kNotAHeapDump);
  }
  SECTION("JSON that is not a heap dump") {
    TempFile json("{\"name\":\"package\", \"version\":\"1.0\"}\n");
    auto r = load_heap(json.path());
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kNotAHeapDump);
  }
  SECTION("binary file") {
    std::string bytes;
    for (int k = 0; k < 4096; ++k) bytes += static_cast<char>((k * 7919) & 0xff);
    TempFile binary(bytes);
    auto r = load_heap(binary.path());
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kNotAHeapDump);
  }
}

TEST_CASE("corrupt gzip is an error, truncated gzip a warning, never a crash", "[loader]") {
  std::string text;
  for (int k = 0; k < 2000; ++k)
    text += object_line({"0x" + std::to_string(1000 + k), "STRING"}) + "\n";
  TempFile gz(text, true);
  std::string bytes;
  {
    std::ifstream in(gz.path(), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  SECTION("cut mid-stream") {
    // Changed on purpose (diagnosis item 5): a cut dump loads what it holds,
    // flagged truncated, like a cut plain dump (load_limits_test.cpp).
    TempFile cut(bytes.substr(0, bytes.size() / 2));
    auto r = load_heap(cut.path());
    REQUIRE(r);
    CHECK((*r)->report().gzip_truncated);
    CHECK((*r)->size() < 2000);
  }
  SECTION("bad CRC") {
    std::string bad = bytes;
    bad[bad.size() - 6] ^= 0x55;  // inside the CRC32 trailer
    TempFile corrupt(bad);
    auto r = load_heap(corrupt.path());
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kCorruptInput);
  }
  SECTION("flipped data bytes") {
    std::string bad = bytes;
    for (std::size_t k = 20; k < 60; ++k) bad[k] = static_cast<char>(~bad[k]);
    TempFile corrupt(bad);
    auto r = load_heap(corrupt.path());
    if (r) {
      CHECK((*r)->report().broken_lines > 0);  // zlib may inflate junk: then lines are broken
    } else {
      CHECK(r.error().reason == ErrorReason::kCorruptInput);
    }
  }
}

TEST_CASE("cancellation stops a load and returns no heap", "[loader]") {
  std::atomic<bool> cancel{true};
  TempFile file(small_dump());
  LoadControl control;
  control.cancel = &cancel;
  auto r = load_heap(file.path(), {}, control);
  REQUIRE_FALSE(r);
  CHECK(r.error().reason == ErrorReason::kCancelled);
}

TEST_CASE("progress is reported up to the file size", "[loader]") {
  TempFile file(small_dump());
  std::uint64_t last = 0, total = 0;
  LoadControl control;
  control.progress = [&](std::uint64_t done, std::uint64_t all) {
    CHECK(done >= last);
    last = done;
    total = all;
  };
  REQUIRE(load_heap(file.path(), {}, control));
  CHECK(total == std::filesystem::file_size(file.path()));
  CHECK(last == total);
}

namespace {
std::string fixture(const std::string& name) {
  return std::string(HEAPLEAK_TEST_DATA_DIR) + "/" + name;
}
}  // namespace

TEST_CASE("public fixtures: every Ruby generation's records load", "[loader][fixtures]") {
  SECTION("Ruby 2.x full dump with roots and zombies (heapy)") {
    auto heap = load_heap(fixture("heapy/my_dump_1.json.gz"));
    REQUIRE(heap);
    CHECK((*heap)->report().broken_lines == 0);
    CHECK((*heap)->roots().size() >= 4);
    bool zombie = false;
    for (ObjectIndex i = 0; i < (*heap)->size(); ++i)
      zombie = zombie || (*heap)->type(i) == ObjectType::kZombie;
    CHECK(zombie);
  }
  SECTION("Ruby 3.0 with allocation tracing (heap-profiler)") {
    auto heap = load_heap(fixture("heap-profiler/ruby-3.0-singleton-classes.heap.gz"));
    REQUIRE(heap);
    CHECK((*heap)->report().traced);
    CHECK((*heap)->has_allocation_info());
  }
  SECTION("Ruby 3.2 partial dump: SHAPE records kept out, no roots") {
    auto heap = load_heap(fixture("heap-profiler/ruby-3.2-partial-retained.heap"));
    REQUIRE(heap);
    CHECK((*heap)->report().shapes == 488);
    CHECK((*heap)->roots().empty());
    CHECK((*heap)->report().missing_references > 0);
  }
  SECTION("Ruby 3.2 nearly empty partial dump") {
    auto heap = load_heap(fixture("heap-profiler/ruby-3.2-partial-empty.heap"));
    REQUIRE(heap);
  }
}
