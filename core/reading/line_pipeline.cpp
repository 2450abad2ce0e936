#include "core/reading/line_pipeline.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "core/base/column.h"
#include "core/base/page_size.h"
#include "core/reading/mapped_reads.h"
#include "core/reading/read_method.h"

namespace heapleak {
namespace {
constexpr std::size_t kMaxBlocks = 3;  // one being parsed, one ready, one being read
constexpr std::size_t kHugePage = MappedMemory::kHugePage;
}  // namespace

void BlockBuffer::grow(std::size_t size, std::size_t keep) {
  if (size <= size_) return;
  // Small buffers (tests, tiny blocks) come from the heap; large ones are
  // rounded to whole 2 MiB pages, so the rounding is capacity, not waste.
  const bool map = size >= kHugePage;
  const std::size_t bytes = map ? MappedMemory::round_up(size) : size;
  char* memory = static_cast<char*>(map ? MappedMemory::map(bytes) : ::operator new(bytes));
  if (keep > 0) std::memcpy(memory, data_, std::min(keep, size_));
  release();
  data_ = memory;
  size_ = bytes;
  mapped_ = map;
}

void BlockBuffer::release() {
  if (data_ == nullptr) return;
  if (mapped_) {
    ::munmap(data_, size_);
  } else {
    ::operator delete(data_);
  }
  data_ = nullptr;
  size_ = 0;
}

LinePipeline::LinePipeline(std::unique_ptr<ByteSource> source, const std::atomic<bool>* cancel,
                           std::size_t block_size, std::size_t max_line)
    : source_(std::move(source)),
      cancel_(cancel),
      block_size_(block_size),
      max_line_(std::max(max_line, block_size)),
      file_size_(source_->file_size()),
      compressed_(source_->compressed()),
      reader_([this] { run(); }) {}

LinePipeline::~LinePipeline() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  reader_.join();
  if (map_ != nullptr) ::munmap(map_, map_length_);
}

bool LinePipeline::stopping() const {
  return stop_ || (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed));
}

std::unique_ptr<LineBlock> LinePipeline::take_free_block() {
  std::unique_ptr<LineBlock> block;
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopping() || !free_.empty() || blocks_made_ < kMaxBlocks; });
    if (stopping()) return nullptr;
    if (free_.empty()) {
      ++blocks_made_;
      return std::make_unique<LineBlock>();
    }
    block = std::move(free_.back());
    free_.pop_back();
  }
  if (block->mapped != nullptr) {
    // Parsed: its pages leave this process's resident set (they stay in the
    // page cache), so a mapped dump never counts in full toward the peak.
    // Here, on the reader's core, not in recycle() on the parser's.
    const std::uintptr_t page = page_size();
    const auto from = reinterpret_cast<std::uintptr_t>(block->mapped) & ~(page - 1);
    const auto to = reinterpret_cast<std::uintptr_t>(block->mapped + block->size) & ~(page - 1);
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    block->mapped = nullptr;
  }
  return block;
}

void LinePipeline::grow(LineBlock& block, std::size_t size, std::size_t keep) {
  const std::size_t before = block.buffer.size();
  block.buffer.grow(size, keep);
  buffer_bytes_ += block.buffer.size() - before;
}

std::size_t LinePipeline::drop_rest_of_line(LineBlock& block, std::uint64_t& dropped,
                                            bool& at_end) {
  char* data = block.buffer.data();
  const std::size_t room = block_size_ - kPadding;  // the buffer holds at least this
  while (!at_end && !stopping()) {
    const std::size_t n = read_source(data, room, at_end);
    if (const char* newline = static_cast<const char*>(std::memchr(data, '\n', n))) {
      const std::size_t used = static_cast<std::size_t>(newline - data) + 1;
      dropped += used;
      std::memmove(data, data + used, n - used);
      return n - used;
    }
    dropped += n;
  }
  return 0;
}

std::size_t LinePipeline::read_source(char* data, std::size_t size, bool& at_end) {
  auto n = source_->read(data, size);
  if (!n) {
    std::lock_guard lock(mutex_);
    error_ = n.error();
    at_end = true;
    return 0;
  }
  consumed_.store(source_->file_bytes_consumed(), std::memory_order_relaxed);
  if (*n == 0) at_end = true;
  return *n;
}

void LinePipeline::run() {
  std::uint64_t offset = 0;
  std::uint32_t long_lines = 0;  // dropped since the last block handed out
  if (auto range = source_->plain_range();
      range && range->end > range->begin &&
      read_method_for(range->fd, range->begin, range->end) == ReadMethod::kMap) {
    offset = run_mapped(*range, long_lines);
    bool failed = false;
    {
      std::lock_guard lock(mutex_);
      failed = error_.has_value();
      if (failed) done_ = true;
    }
    if (failed) {
      changed_.notify_all();
      return;
    }
  }
  run_buffered(offset, long_lines);
}

namespace {

// Where a mapped block that starts at `at` ends: just past its last newline
// before `want`; for a line longer than that, just past its own newline if
// that comes within `max_line` (else `dropped`: the line is skipped up to
// it). `end` is null when the line runs into `safe`, the part read instead.
struct BlockEnd {
  const char* end = nullptr;
  bool dropped = false;
};

BlockEnd find_block_end(const char* at, const char* want, const char* safe, std::size_t max_line) {
  auto after = [](const void* newline) {
    return newline != nullptr ? static_cast<const char*>(newline) + 1 : nullptr;
  };
  if (const char* end = after(memrchr(at, '\n', static_cast<std::size_t>(want - at))))
    return {end, false};
  const char* limit = at + std::min<std::size_t>(max_line, static_cast<std::size_t>(safe - at));
  if (const char* end = after(std::memchr(want, '\n', static_cast<std::size_t>(limit - want))))
    return {end, false};
  if (limit == safe) return {};
  return {after(std::memchr(limit, '\n', static_cast<std::size_t>(safe - limit))), true};
}

}  // namespace

std::uint64_t LinePipeline::run_mapped(const ByteSource::PlainRange& range,
                                       std::uint32_t& long_lines) {
  const std::uintptr_t page = page_size();
  const std::uint64_t map_from = range.begin & ~std::uint64_t{page - 1};
  const auto length = static_cast<std::size_t>(range.end - map_from);
  void* map =
      ::mmap(nullptr, length, PROT_READ, MAP_SHARED, range.fd, static_cast<off_t>(map_from));
  if (map == MAP_FAILED) return 0;  // read it instead
  map_ = map;
  map_length_ = length;
  const char* const start = static_cast<const char*>(map) + (range.begin - map_from);
  const char* const stop = static_cast<const char*>(map) + length;
  // Lines must end kPadding bytes before the mapping does (past the file's
  // end, even within its last page, nothing may be read): the rest is read
  // into a buffer, as a gzip stream is.
  const char* const safe =
      stop - std::min<std::size_t>(kPadding, static_cast<std::size_t>(stop - start));
  auto cut_short = [&] {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = make_error(ErrorReason::kNotReadable, kFileCutShort);
  };
  bool populate = true;
  const char* at = start;
  while (at < safe && !stopping()) {
    const char* want = at + std::min<std::size_t>(block_size_, static_cast<std::size_t>(safe - at));
    // The block's pages are mapped in here, on the reader's core, rather than
    // by the parser as it first reads them. A file cut short since it was
    // opened fails here (EFAULT), not with SIGBUS when read.
    const std::uintptr_t first_page = reinterpret_cast<std::uintptr_t>(at) & ~(page - 1);
    if (populate &&
        ::madvise(reinterpret_cast<void*>(first_page),
                  reinterpret_cast<std::uintptr_t>(want) - first_page, MADV_POPULATE_READ) != 0) {
      if (errno != EINVAL) {
        cut_short();
        return 0;
      }
      populate = false;  // before Linux 5.14: the parser faults the pages in
    }
    BlockEnd found;
    // Cut short after the populate: SIGBUS, turned into the same error.
    if (!read_mapped(start, stop, [&] { found = find_block_end(at, want, safe, max_line_); })) {
      cut_short();
      return 0;
    }
    if (found.end == nullptr) break;  // the rest is read
    if (found.dropped) {
      ++long_lines;
      at = found.end;
      consumed_.store(static_cast<std::uint64_t>(at - start), std::memory_order_relaxed);
      continue;
    }
    auto block = take_free_block();
    if (!block) break;
    block->mapped = at;
    block->mapped_readable = static_cast<std::size_t>(stop - at);
    block->size = static_cast<std::size_t>(found.end - at);
    block->stream_offset = static_cast<std::uint64_t>(at - start);
    block->long_lines_before = long_lines;
    long_lines = 0;
    at = found.end;
    consumed_.store(static_cast<std::uint64_t>(at - start), std::memory_order_relaxed);
    {
      std::lock_guard lock(mutex_);
      full_.push_back(std::move(block));
    }
    changed_.notify_all();
  }
  const auto handed = static_cast<std::uint64_t>(at - start);
  if (!source_->skip(handed)) cut_short();
  return handed;
}

void LinePipeline::run_buffered(std::uint64_t offset, std::uint32_t long_lines) {
  std::vector<char> carry;  // the unfinished last line of the previous block
  bool at_end = false;
  bool mid_line = false;
  while (!at_end) {
    auto block = take_free_block();
    if (!block) break;
    // A buffer grown for a long line goes back to its usual size.
    if (block->buffer.size() > 2 * block_size_) {
      buffer_bytes_ -= block->buffer.size();
      block->buffer.clear();
    }
    std::size_t filled = carry.size();
    // A block holds block_size_ bytes, padding included, so a pooled 4 MiB
    // buffer is exactly two 2 MiB pages; only a carried line longer than half
    // a block makes it grow.
    std::size_t want = block_size_ > carry.size() * 2 + kPadding ? block_size_ - kPadding
                                                                 : carry.size() + block_size_;
    grow(*block, want + kPadding, 0);
    if (!carry.empty()) std::memcpy(block->buffer.data(), carry.data(), carry.size());
    std::size_t scan_from = carry.size();
    char* last_newline = nullptr;
    for (;;) {
      // Fill the block, then look for its last newline; a block without one
      // holds part of a very long line, so grow it and read on.
      while (filled < want && !at_end) {
        filled += read_source(block->buffer.data() + filled, want - filled, at_end);
      }
      if (filled > scan_from) {
        last_newline =
            static_cast<char*>(memrchr(block->buffer.data() + scan_from, '\n', filled - scan_from));
      }
      if (last_newline != nullptr || at_end || stopping()) break;
      if (filled > max_line_) {
        // The whole block is one line past the cap: drop it, and the rest of
        // it as it is read, keeping only what follows its newline.
        std::uint64_t dropped = filled;
        filled = drop_rest_of_line(*block, dropped, at_end);
        offset += dropped;
        ++long_lines;
        if (at_end) mid_line = true;  // the endless line ran to the end of input
        scan_from = 0;
        want = block_size_ - kPadding;
        continue;
      }
      scan_from = filled;
      // Grow geometrically: copying the line at every 4 MiB step is quadratic.
      want = filled + std::max(block_size_, filled);
      grow(*block, want + kPadding, filled);
    }
    // The padding past the data is read by simdjson but never decides anything:
    // zero it so that no byte the parser sees is uninitialised.
    std::memset(block->buffer.data() + filled, 0, kPadding);
    std::size_t whole =
        last_newline ? static_cast<std::size_t>(last_newline - block->buffer.data()) + 1 : filled;
    if (at_end) {
      whole = filled;  // the last line may lack its newline: hand it over as is
      if (filled > 0) mid_line = block->buffer.data()[filled - 1] != '\n';
    }
    carry.assign(block->buffer.data() + whole, block->buffer.data() + filled);
    block->size = whole;
    block->stream_offset = offset;
    block->long_lines_before = long_lines;
    long_lines = 0;
    offset += whole;
    {
      std::lock_guard lock(mutex_);
      full_.push_back(std::move(block));
    }
    changed_.notify_all();
  }
  {
    std::lock_guard lock(mutex_);
    done_ = true;
    ends_mid_line_ = mid_line;
  }
  changed_.notify_all();
}

std::uint64_t LinePipeline::grown_buffer_bytes() const {
  const std::uint64_t usual = std::uint64_t{kMaxBlocks} * block_size_;
  const std::uint64_t now = buffer_bytes_.load();
  return now > usual ? now - usual : 0;
}

bool LinePipeline::ends_mid_line() const {
  std::lock_guard lock(mutex_);
  return ends_mid_line_;
}

std::unique_ptr<LineBlock> LinePipeline::next() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !full_.empty() || done_ || stopping(); });
  if (full_.empty() || stopping()) return nullptr;
  auto block = std::move(full_.front());
  full_.pop_front();
  return block;
}

void LinePipeline::recycle(std::unique_ptr<LineBlock> block) {
  {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(block));
  }
  changed_.notify_all();
}

void LinePipeline::fail(Error error) {
  {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::move(error);
    stop_ = true;
  }
  changed_.notify_all();
}

std::optional<Error> LinePipeline::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace heapleak
