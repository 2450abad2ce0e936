#include "core/reading/gzip_index.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace heapleak {

std::size_t GzipIndex::bytes_used() const {
  std::size_t total = points.size() * sizeof(GzipAccessPoint);
  for (const auto& point : points) total += point.window.size();
  return total;
}

Result<std::string> read_gzip_line(const std::string& path, const GzipIndex& index,
                                   std::uint64_t offset, std::size_t max_bytes) {
  auto after =
      std::upper_bound(index.points.begin(), index.points.end(), offset,
                       [](std::uint64_t value, const GzipAccessPoint& p) { return value < p.out; });
  if (after == index.points.begin())
    return make_error(ErrorReason::kInvalidArgument, "no access point before the record");
  const GzipAccessPoint& point = *(after - 1);

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) return make_error(ErrorReason::kNotReadable, path + ": cannot reopen");
  if (std::fseek(file.get(), static_cast<long>(point.in - (point.bits ? 1 : 0)), SEEK_SET) != 0) {
    return make_error(ErrorReason::kCorruptInput, path + ": cannot seek to the access point");
  }
  z_stream stream{};
  if (inflateInit2(&stream, -15) != Z_OK)
    return make_error(ErrorReason::kCorruptInput, "inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&stream, &inflateEnd);
  if (point.bits) {
    const int byte = std::fgetc(file.get());
    if (byte == EOF)
      return make_error(ErrorReason::kCorruptInput, path + ": truncated at the access point");
    inflatePrime(&stream, point.bits, byte >> (8 - point.bits));
  }
  inflateSetDictionary(&stream, point.window.data(), static_cast<uInt>(point.window.size()));

  std::vector<unsigned char> input(64 * 1024), output(256 * 1024);
  std::uint64_t position = point.out;  // decompressed offset of output[0] of each round
  std::string line;
  for (;;) {
    if (stream.avail_in == 0) {
      const std::size_t got = std::fread(input.data(), 1, input.size(), file.get());
      if (got == 0)
        return make_error(ErrorReason::kCorruptInput, path + ": ends before the record");
      stream.next_in = input.data();
      stream.avail_in = static_cast<uInt>(got);
    }
    stream.next_out = output.data();
    stream.avail_out = static_cast<uInt>(output.size());
    const int rc = inflate(&stream, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END)
      return make_error(ErrorReason::kCorruptInput, path + ": inflate failed");
    const std::size_t produced = output.size() - stream.avail_out;
    // The part of this round at or after `offset`.
    std::size_t from = 0;
    if (position < offset)
      from = static_cast<std::size_t>(std::min<std::uint64_t>(offset - position, produced));
    const char* begin = reinterpret_cast<const char*>(output.data()) + from;
    const char* end = reinterpret_cast<const char*>(output.data()) + produced;
    const char* newline = std::find(begin, end, '\n');
    line.append(begin, newline);
    if (newline != end || line.size() > max_bytes) return line;
    position += produced;
    // A member ends here (several gzip members back to back): the rare
    // record that spans it is read by the slow path instead.
    if (rc == Z_STREAM_END)
      return make_error(ErrorReason::kCorruptInput, "the record crosses a gzip member boundary");
  }
}

}  // namespace heapleak
