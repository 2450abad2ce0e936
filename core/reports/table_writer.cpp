#include "core/reports/table_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace heapleak {

std::optional<TableFormat> parse_table_format(std::string_view name) {
  if (name == "jsonl" || name == "json") return TableFormat::kJsonLines;
  if (name == "csv") return TableFormat::kCsv;
  return std::nullopt;
}

const char* table_extension(TableFormat format) {
  return format == TableFormat::kCsv ? ".csv" : ".jsonl";
}

namespace {

// Length of the valid UTF-8 sequence starting at s[0] (s[0] >= 0x80), or 0.
std::size_t utf8_sequence(std::string_view s) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  std::uint32_t min = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < length) return 0;
  std::uint32_t code = lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

Result<std::unique_ptr<TableWriter>> TableWriter::create(const std::string& path,
                                                         TableFormat format,
                                                         std::vector<std::string> columns) {
  auto file = SafeWrite::open(path, SpecialTarget::kWriteThrough);
  if (!file) return make_error(ErrorReason::kNotReadable, file.error().message);
  std::unique_ptr<TableWriter> writer(
      new TableWriter(path, format, std::move(columns), std::move(*file)));
  return writer;
}

TableWriter::TableWriter(std::string path, TableFormat format, std::vector<std::string> columns,
                         std::unique_ptr<SafeWrite> file)
    : path_(std::move(path)),
      format_(format),
      file_(std::move(file)),
      fd_(file_->fd()),
      buffer_(new char[kBuffer]) {
  if (format_ == TableFormat::kCsv) {
    for (std::size_t k = 0; k < columns.size(); ++k) {
      if (k) put(',');
      put(columns[k]);
    }
    put('\n');
  }
  for (auto& column : columns) keys_.push_back("\"" + column + "\":");
}

TableWriter::~TableWriter() = default;  // an unfinished table's temporary goes with file_

void TableWriter::put(std::string_view bytes) {
  while (!bytes.empty()) {
    if (used_ == kBuffer) flush();
    const std::size_t n = std::min(bytes.size(), kBuffer - used_);
    std::memcpy(buffer_.get() + used_, bytes.data(), n);
    used_ += n;
    bytes.remove_prefix(n);
  }
}

void TableWriter::flush() {
  std::size_t done = 0;
  while (done < used_ && errno_ == 0) {
    const ssize_t n = ::write(fd_, buffer_.get() + done, used_ - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      errno_ = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  used_ = 0;
}

void TableWriter::separator() {
  if (format_ == TableFormat::kJsonLines) {
    put(written_ ? ',' : '{');
    put(keys_[column_]);
    written_ = true;
  } else if (column_ != 0) {
    put(',');
  }
  ++column_;
}

void TableWriter::number(std::uint64_t value) {
  separator();
  if (kBuffer - used_ < 24) flush();
  used_ = static_cast<std::size_t>(
      std::to_chars(buffer_.get() + used_, buffer_.get() + kBuffer, value).ptr - buffer_.get());
}

void TableWriter::address(std::uint64_t value) {
  separator();
  if (kBuffer - used_ < 24) flush();
  char* out = buffer_.get() + used_;
  *out++ = '"';
  *out++ = '0';
  *out++ = 'x';
  out = std::to_chars(out, buffer_.get() + kBuffer, value, 16).ptr;
  *out++ = '"';
  used_ = static_cast<std::size_t>(out - buffer_.get());
}

void TableWriter::boolean(bool value) {
  separator();
  put(value ? std::string_view("true") : std::string_view("false"));
}

void TableWriter::null() {
  // JSON: the key is left out (a reader given the columns reads it as NULL;
  // an untraced dump's rows are a third shorter). CSV: an empty unquoted field.
  if (format_ == TableFormat::kJsonLines)
    ++column_;
  else
    separator();
}

void TableWriter::text(std::string_view value) {
  separator();
  put('"');  // CSV too: a quoted "" is an empty string, an unquoted empty field a NULL
  escaped(value);
  put('"');
}

void TableWriter::escaped(std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  const bool json = format_ == TableFormat::kJsonLines;
  std::size_t plain = 0;  // start of the run of bytes copied as they are
  for (std::size_t k = 0; k < value.size();) {
    const auto c = static_cast<unsigned char>(value[k]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence(value.substr(k));
      if (length) {
        k += length;
        continue;
      }
      put(value.substr(plain, k - plain));
      put(kReplacement);
      plain = ++k;
      continue;
    }
    const bool special = json ? (c < 0x20 || c == '"' || c == '\\') : c == '"';
    if (!special) {
      ++k;
      continue;
    }
    put(value.substr(plain, k - plain));
    if (!json) {
      put("\"\"");
    } else if (c == '"' || c == '\\') {
      put('\\');
      put(static_cast<char>(c));
    } else if (c == '\n') {
      put("\\n");
    } else if (c == '\t') {
      put("\\t");
    } else {
      const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      put(std::string_view(escape, sizeof escape));
    }
    plain = ++k;
  }
  put(value.substr(plain));
}

void TableWriter::end_row() {
  if (format_ == TableFormat::kJsonLines) put(written_ ? "}" : "{}");
  put('\n');
  column_ = 0;
  written_ = false;
  ++rows_;
}

Result<std::uint64_t> TableWriter::finish() {
  flush();
  fd_ = -1;
  if (errno_ != 0)
    return make_error(ErrorReason::kNotReadable,
                      "cannot write " + path_ + ": " + std::strerror(errno_));
  // Tables are exports, rewritten at will: no fsync (as the cache's images).
  if (auto error = file_->commit(false))
    return make_error(ErrorReason::kNotReadable, error->message);
  return rows_;
}

}  // namespace heapleak
