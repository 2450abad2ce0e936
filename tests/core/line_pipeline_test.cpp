// LinePipeline and its BlockBuffer: blocks hold whole lines only, the bytes
// handed out add up to the file exactly, and every line is followed by the
// padding simdjson reads past a document's end, whatever the file's size.
#include "core/reading/line_pipeline.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "tests/core/smaps.h"
#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

struct Drained {
  std::string bytes;  // every block's [0, size) in order
  std::size_t blocks = 0;
  bool lines_whole = true;  // every block but the last ends with a newline
  bool padding_readable = true;
  std::size_t mapped_blocks = 0;  // views of the file's mapping, not buffers
  bool last_block_read = false;   // the last block came from a buffer
};

Drained drain(const std::string& contents, std::size_t block_size) {
  TempFile file(contents);
  auto source = open_byte_source(file.path());
  REQUIRE(source);
  LinePipeline pipeline(std::move(*source), nullptr, block_size);
  Drained out;
  while (auto block = pipeline.next()) {
    ++out.blocks;
    REQUIRE(block->stream_offset == out.bytes.size());
    out.bytes.append(block->data(), block->size);
    const bool ends_line = block->size > 0 && block->data()[block->size - 1] == '\n';
    const bool last = out.bytes.size() == contents.size();
    if (!ends_line && !last) out.lines_whole = false;
    if (block->readable() < block->size + LinePipeline::kPadding) out.padding_readable = false;
    if (block->mapped != nullptr) ++out.mapped_blocks;
    out.last_block_read = block->mapped == nullptr;
    pipeline.recycle(std::move(block));
  }
  REQUIRE_FALSE(pipeline.error());
  return out;
}

std::string lines_of(std::size_t count, std::size_t width) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) {
    text += std::string(width - 1, static_cast<char>('a' + i % 26));
    text += '\n';
  }
  return text;
}

}  // namespace

TEST_CASE("block buffers grow keeping their bytes, small and page-mapped", "[line_pipeline]") {
  BlockBuffer buffer;
  CHECK(buffer.size() == 0);
  buffer.grow(100, 0);
  REQUIRE(buffer.size() >= 100);
  for (int i = 0; i < 100; ++i) buffer.data()[i] = static_cast<char>(i);
  buffer.grow(std::size_t{3} << 20, 100);  // past 2 MiB: mapped in whole 2 MiB pages
  REQUIRE(buffer.size() == std::size_t{4} << 20);
  bool kept = true;
  for (int i = 0; i < 100; ++i) kept = kept && buffer.data()[i] == static_cast<char>(i);
  CHECK(kept);
  buffer.data()[buffer.size() - 1] = 'x';  // the whole rounded size is usable
  buffer.grow(1000, 0);                    // never shrinks
  CHECK(buffer.size() == std::size_t{4} << 20);
}

TEST_CASE("the pipeline hands out the file exactly, in whole lines", "[line_pipeline]") {
  SECTION("an empty file gives no block with data") {
    auto out = drain("", 4096);
    CHECK(out.bytes.empty());
  }
  SECTION("the last line may lack its newline") {
    const std::string text = lines_of(300, 50) + "last line without newline";
    for (std::size_t block : {std::size_t{64}, std::size_t{4096}, std::size_t{4} << 20}) {
      auto out = drain(text, block);
      CHECK(out.bytes == text);
      CHECK(out.lines_whole);
      CHECK(out.padding_readable);
    }
  }
  SECTION("a file whose size is an exact multiple of the page size") {
    const std::string text = lines_of(2 * 4096 / 64, 64);
    REQUIRE(text.size() == 2 * 4096);
    for (std::size_t block :
         {std::size_t{4096}, std::size_t{4096} + LinePipeline::kPadding, std::size_t{4} << 20}) {
      auto out = drain(text, block);
      CHECK(out.bytes == text);
      CHECK(out.lines_whole);
      CHECK(out.padding_readable);
    }
  }
  SECTION("a line longer than a block grows the block") {
    const std::string text = "short\n" + std::string(10000, 'x') + "\nend\n";
    auto out = drain(text, 256);
    CHECK(out.bytes == text);
    CHECK(out.lines_whole);
    CHECK(out.padding_readable);
  }
  SECTION("a plain file is handed out from its mapping, its last bytes from a buffer") {
    // The lines ending within kPadding bytes of the end are read: simdjson
    // reads past a line's end, and past the file's end is no memory at all.
    const std::string text = lines_of(2000, 50);
    auto out = drain(text, 4096);
    CHECK(out.bytes == text);
    CHECK(out.mapped_blocks >= 20);
    CHECK(out.last_block_read);
    CHECK(out.lines_whole);
    CHECK(out.padding_readable);
  }
  SECTION("default blocks over several huge pages of input") {
    const std::string text = lines_of(200000, 60);  // ~12 MB: several 4 MiB blocks
    auto out = drain(text, std::size_t{4} << 20);
    CHECK(out.bytes == text);
    CHECK(out.blocks >= 3);
    CHECK(out.lines_whole);
    CHECK(out.padding_readable);
  }
}

TEST_CASE("a mapped dump's parsed blocks leave the resident set", "[line_pipeline]") {
  // 32 MiB in 1 MiB blocks: without giving parsed pages back, all of it
  // would stay resident until the pipeline ends (the peak RSS of a load).
  const std::string contents = lines_of(32 * 1024, 1024);
  TempFile file(contents);
  auto source = open_byte_source(file.path());
  REQUIRE(source);
  LinePipeline pipeline(std::move(*source), nullptr, std::size_t{1} << 20);
  const char* mapping = nullptr;
  long most_kb = 0;
  std::size_t blocks = 0;
  while (auto block = pipeline.next()) {
    ++blocks;
    if (block->mapped != nullptr) {
      mapping = block->mapped;
      most_kb = std::max(most_kb, std::stol(smaps_field(mapping, "Rss")));
    }
    pipeline.recycle(std::move(block));
  }
  REQUIRE(mapping != nullptr);
  CHECK(blocks >= 30);
  // One block being parsed, one ready, one being read, one just recycled.
  CHECK(most_kb > 0);
  CHECK(most_kb <= 5 * 1024);
}
