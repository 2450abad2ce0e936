// The loader against hostile and damaged input (issue 13, diagnosis item 5):
// the line cap (an endless line is dropped, not buffered), non-regular files
// refused before a blocking open, the memory budget checked as the load
// grows, a dump cut short (plain or gzip) loaded with a `truncated` warning,
// a dump rewritten since its load refused by read_record_text, and a plain
// dump cut short while it loads (its mapping loses pages under the parser).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/heap/record_reader.h"
#include "core/loading/load_warnings.h"
#include "core/loading/loader.h"
#include "core/reading/line_pipeline.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

std::string many_objects(int count) {
  std::string text = root_line("vm", {"0x1000"}) + "\n";
  for (int k = 0; k < count; ++k) {
    std::vector<std::string> refs;
    if (k + 1 < count) refs.push_back("0x" + std::to_string(1000 + k + 1));
    text += object_line({"0x" + std::to_string(1000 + k), "ARRAY", "", refs}) + "\n";
  }
  return text;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("a line past the cap is dropped without being buffered, and counted", "[load_limits]") {
  const std::string before = object_line({"0x100", "STRING"}) + "\n";
  const std::string after = object_line({"0x200", "STRING"}) + "\n";
  const std::string endless(std::size_t{24} << 20, 'x');  // 24 MiB with no newline
  TempFile file(before + endless + "\n" + after);
  auto source = open_byte_source(file.path());
  REQUIRE(source);
  // 64 KiB blocks, 1 MiB cap: without the cap the block grows to 24 MiB.
  LinePipeline pipeline(std::move(*source), nullptr, 64 << 10, 1 << 20);
  std::string kept;
  std::uint32_t dropped = 0;
  std::uint64_t most_buffered = 0;
  while (auto block = pipeline.next()) {
    dropped += block->long_lines_before;
    if (block->long_lines_before > 0) {
      // The block after the dropped line starts right after its newline.
      CHECK(block->stream_offset == before.size() + endless.size() + 1);
    }
    kept.append(block->data(), block->size);
    most_buffered = std::max(most_buffered, pipeline.buffer_bytes());
    pipeline.recycle(std::move(block));
  }
  REQUIRE_FALSE(pipeline.error());
  CHECK(dropped == 1);
  CHECK(kept == before + after);
  CHECK(most_buffered < (std::uint64_t{8} << 20));
  CHECK_FALSE(pipeline.ends_mid_line());

  auto heap = load_heap(file.path(), {.block_size = 64 << 10, .max_line_bytes = 1 << 20});
  REQUIRE(heap);
  CHECK((*heap)->size() == 2);
  CHECK((*heap)->report().broken_lines == 1);
  CHECK((*heap)->report().long_lines == 1);
  CHECK((*heap)->report().lines == 3);
  CHECK((*heap)->report().first_broken_lines == std::vector<std::uint64_t>{2});
  CHECK_FALSE(load_warnings((*heap)->report()).empty());
}

TEST_CASE("an endless line of a gzip bomb ends as one broken line, fast", "[load_limits]") {
  // 64 MiB of NUL bytes, gzipped to ~64 KiB: a single line with no newline.
  TempFile bomb(std::string(std::size_t{64} << 20, '\0'), true);
  const auto started = std::chrono::steady_clock::now();
  auto r = load_heap(bomb.path(), {.max_line_bytes = 4 << 20});
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  REQUIRE_FALSE(r);
  CHECK(r.error().reason == ErrorReason::kNotAHeapDump);
  CHECK(seconds < 10);
}

TEST_CASE("what is not a regular file is refused before it is read", "[load_limits]") {
  SECTION("a character device that never ends") {
    auto r = load_heap("/dev/zero");
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kNotReadable);
    CHECK(r.error().message.find("device") != std::string::npos);
  }
  SECTION("a FIFO with no writer (a blocking open would hang)") {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("heapleak-fifo-" + std::to_string(::getpid())))
            .string();
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    auto r = load_heap(path);
    ::unlink(path.c_str());
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kNotReadable);
    CHECK(r.error().message.find("FIFO") != std::string::npos);
  }
}

TEST_CASE("the budget is checked as the load grows and fails it with overBudget", "[load_limits]") {
  TempFile file(many_objects(20000));
  std::uint64_t last = 0;
  int calls = 0;
  LoadControl control;
  control.charge = [&](std::uint64_t bytes) {
    CHECK(bytes >= last);  // the projection never falls
    last = bytes;
    return ++calls < 3;
  };
  auto r = load_heap(file.path(), {.block_size = 64 << 10}, control);
  REQUIRE_FALSE(r);
  CHECK(r.error().reason == ErrorReason::kOverBudget);
  CHECK(calls == 3);
  CHECK(last >= estimate_peak_bytes(0));

  control.charge = [](std::uint64_t) { return true; };
  auto ok = load_heap(file.path(), {.block_size = 64 << 10}, control);
  REQUIRE(ok);
  CHECK((*ok)->size() == 20000);
}

TEST_CASE("a charge refused at the start fails the load before it reads a block", "[load_limits]") {
  // heapleakd without --max-memory refuses there a load whose low estimate
  // cannot fit (core/loading/load_memory_guard.h): nothing reserved, nothing read.
  TempFile file(many_objects(20000));
  int progress_calls = 0;
  std::vector<std::uint64_t> charged;
  LoadControl control;
  control.progress = [&](std::uint64_t, std::uint64_t) { ++progress_calls; };
  control.charge = [&](std::uint64_t bytes) {
    charged.push_back(bytes);
    return false;
  };
  auto r = load_heap(file.path(), {.block_size = 64 << 10}, control);
  REQUIRE_FALSE(r);
  CHECK(r.error().reason == ErrorReason::kOverBudget);
  CHECK(charged == std::vector<std::uint64_t>{estimate_peak_bytes(0)});
  CHECK(progress_calls == 0);
}

TEST_CASE("a dump cut short loads what it holds, with a truncated warning, plain or gzip",
          "[load_limits]") {
  const std::string text = many_objects(4000);
  const std::string cut = text.substr(0, text.size() * 6 / 10);  // mid-record
  REQUIRE(cut.back() != '\n');

  TempFile whole(text);
  auto full = load_heap(whole.path());
  REQUIRE(full);
  CHECK_FALSE(looks_truncated((*full)->report()));
  CHECK(load_warnings((*full)->report()).empty());

  SECTION("plain") {
    TempFile file(cut);
    auto r = load_heap(file.path());
    REQUIRE(r);
    const LoadReport& report = (*r)->report();
    CHECK(report.ends_mid_line);
    CHECK(looks_truncated(report));
    CHECK((*r)->size() > 2000);
    CHECK((*r)->size() < 4000);
    auto warnings = load_warnings(report);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].rfind("truncated: ", 0) == 0);
    CHECK(warnings[0].find(std::to_string(report.objects) + " objects") != std::string::npos);
  }
  SECTION("gzip cut mid-stream") {
    TempFile gz(text, true);
    const std::string bytes = file_bytes(gz.path());
    TempFile file(bytes.substr(0, bytes.size() * 6 / 10));
    auto r = load_heap(file.path());
    REQUIRE(r);
    CHECK((*r)->report().gzip_truncated);
    CHECK(looks_truncated((*r)->report()));
    CHECK((*r)->size() > 0);
    CHECK((*r)->size() < 4000);
    CHECK_FALSE(load_warnings((*r)->report()).empty());
  }
  SECTION("a gzip cut before any record is still an error") {
    TempFile gz(text, true);
    TempFile file(file_bytes(gz.path()).substr(0, 12));
    auto r = load_heap(file.path());
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kCorruptInput);
  }
}

TEST_CASE("a record is not read back from a dump rewritten since its load", "[load_limits]") {
  const std::string text = many_objects(50);
  TempFile file(text);
  auto heap = load_heap(file.path());
  REQUIRE(heap);
  const ObjectIndex i = index_of(**heap, "0x1010");
  auto line = read_record_text(**heap, i);
  REQUIRE(line);
  CHECK(line->find("\"0x1010\"") != std::string::npos);

  SECTION("same size, other contents, other inode") {
    std::string rewritten = text;
    // Same length: every 0x10.. address becomes 0x20.. .
    for (std::size_t at = 0; (at = rewritten.find("0x1", at)) != std::string::npos; ++at)
      rewritten[at + 2] = '2';
    const std::string temp = file.path() + ".new";
    std::ofstream(temp, std::ios::binary) << rewritten;
    std::filesystem::rename(temp, file.path());
    auto r = read_record_text(**heap, i);
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kDumpChanged);
  }
  SECTION("same inode and size, rewritten in place with the old mtime") {
    std::string rewritten = text;
    for (std::size_t at = 0; (at = rewritten.find("0x1", at)) != std::string::npos; ++at)
      rewritten[at + 2] = '2';
    struct stat before {};
    REQUIRE(::stat(file.path().c_str(), &before) == 0);
    { std::ofstream(file.path(), std::ios::binary | std::ios::in) << rewritten; }
    // Put the old mtime back: only the record check can tell now.
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    REQUIRE(::utimensat(AT_FDCWD, file.path().c_str(), times, 0) == 0);
    auto r = read_record_text(**heap, i);
    REQUIRE_FALSE(r);
    CHECK(r.error().reason == ErrorReason::kDumpChanged);
  }
}

TEST_CASE("a plain dump cut short while it loads fails that load, with a clear error",
          "[mapped][loader]") {
  const std::string text = many_objects(40000);  // ~2.5 MB: many 64 KiB blocks
  TempFile file(text);
  for (const char* method : {"map", "read"})
    for (bool split : {false, true}) {
      INFO("split in two halves: " << split << ", bytes got by " << method);
      ScopedEnv forced("HEAPLEAK_READ", method);
      // Rewrite the file back to full size, then cut it to 10% as the first
      // progress report comes (after the first block): the blocks mapped
      // ahead of the parser lose their pages under it; read(2) meets the
      // file's end before the size it had when opened.
      {
        const int fd = ::open(file.path().c_str(), O_WRONLY | O_TRUNC);
        REQUIRE(fd >= 0);
        REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
        ::close(fd);
      }
      LoadOptions options;
      options.block_size = 64 << 10;
      if (split) options.split_from_bytes = 0;
      LoadControl control;
      bool cut = false;
      control.progress = [&](std::uint64_t, std::uint64_t) {
        if (!cut)
          REQUIRE(::truncate(file.path().c_str(), static_cast<off_t>(text.size() / 10)) == 0);
        cut = true;
      };
      auto heap = load_heap(file.path(), options, control);
      REQUIRE(cut);
      REQUIRE_FALSE(heap);
      CHECK(heap.error().reason == ErrorReason::kNotReadable);
      CHECK(heap.error().message.find("shorter than when the load began") != std::string::npos);
      CHECK(heap.error().message.find(file.path()) == 0);
    }
  // What is left of the file loads, as a dump cut mid-line.
  auto rest = load_heap(file.path());
  REQUIRE(rest);
  CHECK((*rest)->report().ends_mid_line);
}
