// Where dump bytes come from: a plain file or a gzip stream, chosen by the
// file's magic bytes (never by its name). Sources hand out decompressed bytes
// in order and report how far into the file on disk they are, for progress.
// Only regular files are opened: a FIFO, device or socket would block or
// never end, so it is refused before anything reads from it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/base/error.h"
#include "core/base/file_identity.h"
#include "core/reading/gzip_index.h"

namespace heapleak {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // The error of a plain file that ends before the size it had when opened.
  static constexpr const char* kFileCutShort =
      "the file is shorter than when the load began (rewritten while it loaded?)";

  // Reads up to `capacity` decompressed bytes into `out`; 0 means the end.
  // A plain file is read up to the size it had when opened: past it is not
  // the dump that was opened, and ending before it is an error (kFileCutShort).
  virtual Result<std::size_t> read(char* out, std::size_t capacity) = 0;

  // Bytes of the file on disk consumed so far (compressed bytes for gzip).
  virtual std::uint64_t file_bytes_consumed() const = 0;

  // gzip: access points saved while inflating (see gzip_index.h); null for
  // plain files. Complete once read() has returned 0.
  virtual std::shared_ptr<const GzipIndex> access_index() const { return nullptr; }

  // gzip cut mid-stream: read() ended early, after every byte that could be
  // inflated. The caller decides whether a partial dump is worth loading.
  virtual bool truncated() const { return false; }

  // Plain files only, before the first read: read() hands out the bytes
  // [begin, end) of the file and no others (a load split in two, each half
  // on its own thread). False for gzip, which cannot start mid-stream.
  virtual bool restrict_to(std::uint64_t /*begin*/, std::uint64_t /*end*/) { return false; }

  // Plain files only: the descriptor and the byte range read() would hand
  // out from here on (to the file's size at open when not restricted), for a
  // reader that maps the file instead of copying it (core/reading/line_pipeline.cpp).
  struct PlainRange {
    int fd = -1;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
  };
  virtual std::optional<PlainRange> plain_range() const { return std::nullopt; }
  // Plain files only: moves the read position `bytes` on (past what a
  // mapping handed out), counted as consumed.
  virtual bool skip(std::uint64_t /*bytes*/) { return false; }

  std::uint64_t file_size() const { return file_size_; }
  bool compressed() const { return compressed_; }
  const FileIdentity& identity() const { return identity_; }

 protected:
  friend Result<std::unique_ptr<ByteSource>> open_byte_source(const std::string& path);
  std::uint64_t file_size_ = 0;
  bool compressed_ = false;
  FileIdentity identity_;
};

// Opens `path`; fileNotFound / notReadable errors name the file and the
// cause. Anything but a regular file (directory, FIFO, device, socket) is
// notReadable, decided before a blocking open.
Result<std::unique_ptr<ByteSource>> open_byte_source(const std::string& path);

// True when `prefix` starts with the gzip magic bytes 1f 8b.
bool has_gzip_magic(const unsigned char* prefix, std::size_t size);

}  // namespace heapleak
