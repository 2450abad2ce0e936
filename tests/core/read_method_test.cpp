// How a plain dump's bytes are got (core/reading/read_method.h): mapped or read(2),
// chosen by a probe or forced with HEAPLEAK_READ; either way the pipeline
// hands out the same bytes and the loader builds the same heap.
#include "core/reading/read_method.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/loading/loader.h"
#include "core/reading/line_pipeline.h"
#include "tests/core/same_heap.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

// A dump with what a block boundary can cut: long and broken lines, roots,
// names, references forward and back, a last line without its newline.
std::string varied_dump() {
  std::vector<std::string> lines = {class_line("0x20", "String"), class_line("0x40", "App::Model")};
  for (int k = 0; k < 20000; ++k) {
    char address[32], next[32];
    std::snprintf(address, sizeof address, "0x%x", 0x10000 + 40 * k);
    std::snprintf(next, sizeof next, "0x%x", 0x10000 + 40 * ((k + 7) % 20000));
    std::string extra = "\"memsize\":40";
    if (k % 997 == 0) extra += ", \"value\":\"" + std::string(70000, 'v') + "\"";
    lines.push_back(object_line(
        {address, k % 3 ? "STRING" : "OBJECT", k % 3 ? "0x20" : "0x40", {next}, extra}));
    if (k % 5003 == 0) lines.push_back("{\"address\":\"0x70\", \"type\":\"OBJE");
  }
  lines.push_back(root_line("vm", {"0x10000", "0x10028"}));
  std::string text = join_lines(lines);
  text.pop_back();
  return text;
}

std::string drained(const std::string& path, std::size_t& mapped_blocks) {
  auto source = open_byte_source(path);
  REQUIRE(source);
  LinePipeline pipeline(std::move(*source), nullptr, std::size_t{64} << 10);
  std::string bytes;
  mapped_blocks = 0;
  while (auto block = pipeline.next()) {
    REQUIRE(block->stream_offset == bytes.size());
    bytes.append(block->data(), block->size);
    if (block->mapped != nullptr) ++mapped_blocks;
    pipeline.recycle(std::move(block));
  }
  REQUIRE_FALSE(pipeline.error());
  return bytes;
}

}  // namespace

TEST_CASE("HEAPLEAK_READ forces the read method; small files are mapped", "[read_method]") {
  TempFile file(std::string(4096, 'x'));
  const int fd = ::open(file.path().c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  {
    ScopedEnv forced("HEAPLEAK_READ", "read");
    CHECK(read_method_for(fd, 0, kProbeFrom * 4) == ReadMethod::kRead);
    CHECK(read_method_for(fd, 0, 4096) == ReadMethod::kRead);
  }
  {
    ScopedEnv forced("HEAPLEAK_READ", "map");
    CHECK(read_method_for(fd, 0, kProbeFrom * 4) == ReadMethod::kMap);
  }
  {
    ScopedEnv unforced("HEAPLEAK_READ", nullptr);
    CHECK(read_method_for(fd, 0, 4096) == ReadMethod::kMap);
    CHECK(read_method_for(fd, 0, kProbeFrom - 1) == ReadMethod::kMap);
  }
  ::close(fd);
}

TEST_CASE("the probe gives one verdict per process", "[read_method]") {
  // A sparse file as large as a probed range: reads give zeros, maps populate.
  TempFile file("");
  const int fd = ::open(file.path().c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, static_cast<off_t>(kProbeFrom * 2)) == 0);
  ScopedEnv unforced("HEAPLEAK_READ", nullptr);
  const ReadMethod first = read_method_for(fd, 0, kProbeFrom * 2);
  CHECK(read_method_for(fd, kProbeFrom, kProbeFrom * 2 + kProbeFrom) == first);
  CHECK(read_method_for(fd, 4096, kProbeFrom * 2) == first);
  ::close(fd);
}

TEST_CASE("read(2) and the mapping hand out the same bytes and load the same heap",
          "[read_method][loader]") {
  const std::string text = varied_dump();
  TempFile file(text);
  std::size_t mapped_blocks = 0;
  {
    ScopedEnv forced("HEAPLEAK_READ", "map");
    CHECK(drained(file.path(), mapped_blocks) == text);
    CHECK(mapped_blocks > 10);
  }
  {
    ScopedEnv forced("HEAPLEAK_READ", "read");
    CHECK(drained(file.path(), mapped_blocks) == text);
    CHECK(mapped_blocks == 0);
  }
  for (LoadMode mode : {LoadMode::kFull, LoadMode::kIdentityOnly}) {
    LoadOptions options;
    options.mode = mode;
    options.block_size = std::size_t{64} << 10;
    std::shared_ptr<const Heap> mapped, read;
    {
      ScopedEnv forced("HEAPLEAK_READ", "map");
      auto heap = load_heap(file.path(), options);
      REQUIRE(heap);
      mapped = *heap;
    }
    {
      ScopedEnv forced("HEAPLEAK_READ", "read");
      auto heap = load_heap(file.path(), options);
      REQUIRE(heap);
      read = *heap;
    }
    CHECK(mapped->report().broken_lines == 4);
    CHECK(mapped->report().long_lines == 0);
    require_same_heap(*mapped, *read);
  }
}
