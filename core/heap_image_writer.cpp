#include "core/heap_image_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/checksum.h"
#include "core/heap_image_format.h"

namespace heapleak::image {
namespace {

struct Part {
  const char* name;
  const void* data;
  std::uint64_t bytes;
};

std::uint64_t align(std::uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

bool write_all(int fd, const void* data, std::uint64_t bytes, std::uint64_t offset) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n =
        ::pwrite(fd, p, std::min<std::uint64_t>(bytes, 1u << 30), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::uint64_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

std::string temp_name(const std::string& image_path) {
  static std::atomic<unsigned> counter{0};
  return image_path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++counter);
}

}  // namespace

std::optional<std::string> write_heap_image(const Heap& heap, const ImageKey& key,
                                            const std::string& image_path) {
  const HeapColumns& c = heap.columns();
  const std::string meta = encode_meta(key, heap.report(), c.roots);
  // Strings as one text and their end offsets (string 0 is the empty one).
  std::vector<std::uint64_t> ends;
  std::string text;
  ends.reserve(c.names.size());
  for (std::uint32_t id = 0; id < c.names.size(); ++id) {
    text.append(c.names.at(id));
    ends.push_back(text.size());
  }
  const std::string gzip = c.gzip_index ? encode_gzip_index(*c.gzip_index) : std::string();

  std::vector<Part> parts{
      {"meta", meta.data(), meta.size()},
      {"names.ends", ends.data(), ends.size() * sizeof(std::uint64_t)},
      {"names.text", text.data(), text.size()},
      {"gzip_index", gzip.data(), gzip.size()},
      // The shape table is small (thousands of shapes): copied back on open.
      {"shapes.parent", c.shapes.parent.data(), c.shapes.parent.size() * 4},
      {"shapes.kind", c.shapes.kind.data(), c.shapes.kind.size()},
      {"shapes.edge_name", c.shapes.edge_name.data(), c.shapes.edge_name.size() * 4}};
  for_each_column(c, [&](const char* name, const auto& column) {
    parts.push_back({name, column.data(), column.size() * sizeof(column[0])});
  });

  std::vector<Section> table(parts.size());
  std::uint64_t offset = align(sizeof(Header) + table.size() * sizeof(Section));
  for (std::size_t k = 0; k < parts.size(); ++k) {
    Section& s = table[k];
    std::memset(&s, 0, sizeof s);
    std::strncpy(s.name, parts[k].name, sizeof s.name - 1);
    s.offset = offset;
    s.bytes = parts[k].bytes;
    s.checksum = xxh64(parts[k].data, parts[k].bytes);
    offset = align(offset + parts[k].bytes);
  }
  Header header;
  std::memset(&header, 0, sizeof header);
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.format_version = kHeapImageVersion;
  header.section_count = static_cast<std::uint32_t>(table.size());
  header.image_bytes = offset;
  header.load_mode = static_cast<std::uint32_t>(key.mode);
  header.layout = kLayout;
  std::vector<char> head(sizeof(Header) + table.size() * sizeof(Section));
  std::memcpy(head.data(), &header, sizeof header);
  std::memcpy(head.data() + sizeof header, table.data(), table.size() * sizeof(Section));
  header.table_checksum = xxh64(head.data(), head.size());
  std::memcpy(head.data(), &header, sizeof header);

  const std::string temp = temp_name(image_path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot create " + temp + ": " + std::strerror(errno);
  bool ok = true;
  for (std::size_t k = 0; k < parts.size() && ok; ++k) {
    ok = write_all(fd, parts[k].data, parts[k].bytes, table[k].offset);
  }
  // The header goes last: a file cut before it has no magic.
  ok = ok && ::ftruncate(fd, static_cast<off_t>(header.image_bytes)) == 0 &&
       write_all(fd, head.data(), head.size(), 0);
  const int write_errno = errno;
  ok = (::close(fd) == 0) && ok;
  if (ok && ::rename(temp.c_str(), image_path.c_str()) == 0) return std::nullopt;
  const std::string why = std::strerror(ok ? errno : write_errno);
  ::unlink(temp.c_str());
  return "cannot write " + image_path + ": " + why;
}

}  // namespace heapleak::image
