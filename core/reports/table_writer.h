// One table file written row by row, as JSON lines or CSV, through a 1 MiB
// buffer: numbers by std::to_chars, strings escaped in place (invalid UTF-8
// becomes U+FFFD so DuckDB and Spark never reject a line), no allocation per
// row. The layout of heapleak's tables is in core/reports/heap_tables.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.h"
#include "core/base/safe_write.h"

namespace heapleak {

enum class TableFormat { kJsonLines, kCsv };

std::optional<TableFormat> parse_table_format(std::string_view name);  // "jsonl", "csv"
const char* table_extension(TableFormat format);                       // ".jsonl", ".csv"

class TableWriter {
 public:
  // Creates `path` by core/base/safe_write.h (a 0600 temporary renamed over it
  // by finish()); `columns` are the header (CSV) and keys (JSON).
  static Result<std::unique_ptr<TableWriter>> create(const std::string& path, TableFormat format,
                                                     std::vector<std::string> columns);
  ~TableWriter();
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

  // A row is its columns' values in order, then end_row().
  void number(std::uint64_t value);
  void text(std::string_view value);
  void address(std::uint64_t value);  // "0x7f..." as heapleak prints addresses
  void boolean(bool value);
  void null();  // JSON lines leave the key out; CSV writes an empty field
  void end_row();

  // Writes what is buffered and closes; the error names the file.
  Result<std::uint64_t> finish();  // rows written
  const std::string& path() const { return path_; }

 private:
  TableWriter(std::string path, TableFormat format, std::vector<std::string> columns,
              std::unique_ptr<SafeWrite> file);
  void separator();
  void put(char c) {
    if (used_ == kBuffer) flush();
    buffer_[used_++] = c;
  }
  void put(std::string_view bytes);
  void escaped(std::string_view value);
  void flush();

  static constexpr std::size_t kBuffer = 1 << 20;
  std::string path_;
  TableFormat format_;
  std::vector<std::string> keys_;    // JSON: `"name":` ready to copy
  std::unique_ptr<SafeWrite> file_;  // the temporary until finish() renames it
  int fd_ = -1;
  std::unique_ptr<char[]> buffer_;
  std::size_t used_ = 0;
  std::size_t column_ = 0;
  bool written_ = false;  // JSON: a value of this row is out (NULLs are left out)
  std::uint64_t rows_ = 0;
  int errno_ = 0;  // the first write error
};

}  // namespace heapleak
