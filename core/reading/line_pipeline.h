// Reads a dump on its own thread and hands the parser blocks that hold whole
// lines only, so reading (or inflating) overlaps parsing. A plain file is
// mapped, and its blocks are views of the mapping (no copy), unless it is
// large and core/reading/read_method.h finds read(2) cheaper on this machine; a gzip
// stream, such a plain file, and a mapped file's last bytes are read into
// buffers recycled through a small pool: memory stays bounded however large
// the file is. A line longer
// than a block grows that block (geometrically) up to a cap; a line past the
// cap is dropped up to its newline without being buffered, and counted, so
// an endless line (/dev/zero gzipped) cannot exhaust memory.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/reading/byte_source.h"

namespace heapleak {

// A block's memory. It is not zeroed (every byte handed out was read into it
// first), and large buffers are mapped in 2 MiB multiples like columns
// (core/base/column.h), so they are given back to the kernel when freed.
class BlockBuffer {
 public:
  BlockBuffer() = default;
  ~BlockBuffer() { release(); }
  BlockBuffer(const BlockBuffer&) = delete;
  BlockBuffer& operator=(const BlockBuffer&) = delete;

  char* data() { return data_; }
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Makes the buffer at least `size` bytes, keeping its first `keep` bytes.
  void grow(std::size_t size, std::size_t keep);
  void clear() { release(); }

 private:
  void release();

  char* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
};

struct LineBlock {
  // Whole lines in data()[0, size), followed by at least kPadding readable
  // bytes (simdjson reads a little past the end of a document).
  BlockBuffer buffer;
  // Set when the lines lie in the mapping of a plain file, not in `buffer`.
  const char* mapped = nullptr;
  std::size_t mapped_readable = 0;  // bytes readable from `mapped` on
  const char* data() const { return mapped != nullptr ? mapped : buffer.data(); }
  std::size_t readable() const { return mapped != nullptr ? mapped_readable : buffer.size(); }
  std::size_t size = 0;
  std::uint64_t stream_offset = 0;  // offset of data()[0] in the decompressed stream
  // Lines longer than the cap dropped just before data()[0] (each one line).
  std::uint32_t long_lines_before = 0;
};

class LinePipeline {
 public:
  static constexpr std::size_t kPadding = 64;
  // The error of a load whose plain file shrank while it loaded.
  static constexpr const char* kFileCutShort = ByteSource::kFileCutShort;

  static constexpr std::size_t kDefaultMaxLine = std::size_t{64} << 20;

  // Lines longer than max(max_line, block_size) are dropped (long_lines_before).
  LinePipeline(std::unique_ptr<ByteSource> source, const std::atomic<bool>* cancel,
               std::size_t block_size = std::size_t{4} << 20,
               std::size_t max_line = kDefaultMaxLine);
  ~LinePipeline();
  LinePipeline(const LinePipeline&) = delete;
  LinePipeline& operator=(const LinePipeline&) = delete;

  // The next block, or nullptr at the end of input (then check error()).
  std::unique_ptr<LineBlock> next();
  void recycle(std::unique_ptr<LineBlock> block);

  std::optional<Error> error() const;
  // The parser met an error the pipeline should report (a mapped file cut
  // short): kept as error(), and reading stops.
  void fail(Error error);
  std::uint64_t file_bytes_consumed() const { return consumed_.load(); }
  std::uint64_t file_size() const { return file_size_; }
  bool compressed() const { return compressed_; }
  // Memory the blocks hold now (it grows with long lines), for the budget.
  std::uint64_t buffer_bytes() const { return buffer_bytes_.load(); }
  // What long lines made the blocks grow past the pool's usual size (the
  // usual pool is part of every load's fixed estimate).
  std::uint64_t grown_buffer_bytes() const;
  // After next() returned nullptr: the input ended without a final newline
  // (a dump cut mid-record), or was a gzip stream cut short.
  bool ends_mid_line() const;
  bool truncated() const { return source_->truncated(); }
  const FileIdentity& identity() const { return source_->identity(); }
  // After next() returned nullptr: the gzip access points (null for plain files).
  std::shared_ptr<const GzipIndex> access_index() const { return source_->access_index(); }

 private:
  void run();
  // Hands out the lines of a plain file's range as views of its mapping, up
  // to where too few bytes follow for simdjson's padding (or a line runs
  // into them); returns how far it got, for run_buffered to read on from.
  std::uint64_t run_mapped(const ByteSource::PlainRange& range, std::uint32_t& long_lines);
  void run_buffered(std::uint64_t offset, std::uint32_t long_lines);
  std::unique_ptr<LineBlock> take_free_block();
  bool stopping() const;
  void grow(LineBlock& block, std::size_t size, std::size_t keep);
  // One read from the source: the bytes read; 0 and `at_end` set at the end
  // of the input or on an error (kept for next() to report).
  std::size_t read_source(char* data, std::size_t size, bool& at_end);
  // Reads past the end of an over-long line; returns the bytes after its
  // newline, moved to the block's start. Adds what it dropped to `dropped`.
  std::size_t drop_rest_of_line(LineBlock& block, std::uint64_t& dropped, bool& at_end);

  std::unique_ptr<ByteSource> source_;
  const std::atomic<bool>* cancel_;
  const std::size_t block_size_;
  const std::size_t max_line_;
  const std::uint64_t file_size_;
  const bool compressed_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<LineBlock>> full_;
  std::vector<std::unique_ptr<LineBlock>> free_;
  std::size_t blocks_made_ = 0;
  bool done_ = false;
  std::atomic<bool> stop_{false};  // also read unlocked, by the reader between blocks
  bool ends_mid_line_ = false;
  std::optional<Error> error_;
  std::atomic<std::uint64_t> buffer_bytes_{0};
  std::atomic<std::uint64_t> consumed_{0};
  // The mapping of a plain file's range (run_mapped), unmapped at the end.
  void* map_ = nullptr;
  std::size_t map_length_ = 0;
  std::thread reader_;
};

}  // namespace heapleak
