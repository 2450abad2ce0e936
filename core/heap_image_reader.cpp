#include "core/heap_image_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/checksum.h"
#include "core/heap_image_format.h"

namespace heapleak::image {
namespace {

// The whole image mapped read-only; unmapped when the last view goes.
struct Mapping {
  void* base = MAP_FAILED;
  std::size_t bytes = 0;
  ~Mapping() {
    if (base != MAP_FAILED) ::munmap(base, bytes);
  }
  const char* at(std::uint64_t offset) const { return static_cast<const char*>(base) + offset; }
};

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

OpenedImage problem(ImageProblem kind, std::string why) {
  return OpenedImage{nullptr, kind, std::move(why)};
}

// Checks what can be checked without the payload: magic, version, layout,
// size and the table's checksum; on success `table` holds the sections.
ImageProblem check_head(const char* bytes, std::uint64_t file_bytes, std::vector<Section>& table,
                        std::string& why) {
  Header header;
  if (file_bytes < sizeof header) {
    why = "shorter than its header";
    return ImageProblem::kTruncated;
  }
  std::memcpy(&header, bytes, sizeof header);
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0) {
    why = "not a heapleak cache image (bad magic)";
    return ImageProblem::kCorrupt;
  }
  if (header.format_version != kHeapImageVersion || header.layout != kLayout) {
    why = "written by image format " + std::to_string(header.format_version) +
          ", this heapleak reads format " + std::to_string(kHeapImageVersion);
    return ImageProblem::kVersion;
  }
  if (header.section_count > kMaxSections ||
      sizeof header + header.section_count * sizeof(Section) > file_bytes) {
    why = "its section table is damaged";
    return ImageProblem::kCorrupt;
  }
  if (header.image_bytes > file_bytes) {
    why = "truncated: " + std::to_string(file_bytes) + " of " + std::to_string(header.image_bytes) +
          " bytes";
    return ImageProblem::kTruncated;
  }
  if (header.image_bytes != file_bytes) {
    why = "its size does not match its header";
    return ImageProblem::kCorrupt;
  }
  std::vector<char> head(bytes, bytes + sizeof header + header.section_count * sizeof(Section));
  const std::uint64_t expected = header.table_checksum;
  std::memset(head.data() + offsetof(Header, table_checksum), 0, sizeof expected);
  if (xxh64(head.data(), head.size()) != expected) {
    why = "checksum mismatch in its header";
    return ImageProblem::kCorrupt;
  }
  table.resize(header.section_count);
  std::memcpy(table.data(), bytes + sizeof header, table.size() * sizeof(Section));
  for (const Section& s : table) {
    if (s.offset % kAlign != 0 || s.offset > file_bytes || s.bytes > file_bytes - s.offset) {
      why = "a section lies outside the file";
      return ImageProblem::kCorrupt;
    }
  }
  return ImageProblem::kNone;
}

const Section* find(const std::vector<Section>& table, std::string_view name) {
  for (const Section& s : table) {
    if (std::string_view(s.name, strnlen(s.name, sizeof s.name)) == name) return &s;
  }
  return nullptr;
}

bool same_dump(const ImageKey& image, const ImageKey& now) {
  return image.path == now.path && image.identity == now.identity &&
         image.head_tail == now.head_tail;
}

// Sizes the columns must agree on; values inside are covered by the checksums.
bool consistent(const HeapColumns& c, const LoadReport& report) {
  const std::size_t n = c.address.size();
  if (n != report.objects) return false;
  bool ok = true;
  for_each_column(c, [&](std::string_view name, const auto& column) {
    if (column.empty()) return;
    if (name == "out_offsets" || name == "in_offsets") {
      ok = ok && column.size() == n + 1;
    } else if (name != "out_edges" && name != "in_edges") {
      ok = ok && column.size() == n;
    }
  });
  if (!ok) return false;
  if (!c.out_offsets.empty() && c.out_offsets[n] != c.out_edges.size()) return false;
  if (!c.in_offsets.empty() && c.in_offsets[n] != c.in_edges.size()) return false;
  for (const auto& root : c.roots) {
    for (ObjectIndex target : root.targets) {
      if (target >= n) return false;
    }
  }
  return true;
}

// The shape table, copied out of its three sections (it is small). An image
// without them is an image of a dump without SHAPE records. Every name must
// be a string of the image's pool, since ivar naming looks them up.
bool read_shapes(const std::vector<Section>& table, const Mapping& mapping, std::size_t names,
                 ShapeTable& shapes) {
  const Section* parent = find(table, "shapes.parent");
  const Section* kind = find(table, "shapes.kind");
  const Section* edge_name = find(table, "shapes.edge_name");
  if (parent == nullptr || kind == nullptr || edge_name == nullptr) return false;
  const std::size_t count = kind->bytes;
  if (parent->bytes != count * 4 || edge_name->bytes != count * 4) return false;
  if (count > ShapeTable::kMaxShapeId + 1) return false;
  shapes.parent.resize(count);
  shapes.kind.resize(count);
  shapes.edge_name.resize(count);
  if (count == 0) return true;
  std::memcpy(shapes.parent.data(), mapping.at(parent->offset), count * 4);
  std::memcpy(shapes.kind.data(), mapping.at(kind->offset), count);
  std::memcpy(shapes.edge_name.data(), mapping.at(edge_name->offset), count * 4);
  for (std::size_t id = 0; id < count; ++id) {
    if (static_cast<std::uint8_t>(shapes.kind[id]) > static_cast<std::uint8_t>(ShapeKind::kOther))
      return false;
    if (shapes.edge_name[id] >= names) return false;
  }
  return true;
}

}  // namespace

OpenedImage open_heap_image(const std::string& image_path, const ImageKey& expected,
                            const std::function<void(LoadReport&)>& finish) {
  Fd file{::open(image_path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return problem(ImageProblem::kMissing, "no image");
    return problem(ImageProblem::kCorrupt, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode))
    return problem(ImageProblem::kCorrupt, "not a regular file");
  const auto file_bytes = static_cast<std::uint64_t>(info.st_size);
  if (file_bytes == 0) return problem(ImageProblem::kTruncated, "empty");
  auto mapping = std::make_shared<Mapping>();
  mapping->base = ::mmap(nullptr, file_bytes, PROT_READ, MAP_SHARED, file.fd, 0);
  if (mapping->base == MAP_FAILED)
    return problem(ImageProblem::kCorrupt, std::string("cannot map: ") + std::strerror(errno));
  mapping->bytes = file_bytes;

  std::vector<Section> table;
  std::string why;
  if (auto head = check_head(mapping->at(0), file_bytes, table, why); head != ImageProblem::kNone)
    return problem(head, why);

  // The key first, so a stale image costs no payload reading.
  const Section* meta = find(table, "meta");
  if (meta == nullptr || xxh64(mapping->at(meta->offset), meta->bytes) != meta->checksum)
    return problem(ImageProblem::kCorrupt, "checksum mismatch in its meta section");
  ImageKey key;
  LoadReport report;
  HeapColumns columns;
  if (!decode_meta(std::string_view(mapping->at(meta->offset), meta->bytes), key, report,
                   columns.roots))
    return problem(ImageProblem::kCorrupt, "its meta section does not decode");
  if (!same_dump(key, expected))
    return problem(ImageProblem::kStale, "the dump changed since the image was written");
  if (key.mode == LoadMode::kIdentityOnly && expected.mode == LoadMode::kFull)
    return problem(ImageProblem::kWrongMode, "an identity-only image cannot serve a full load");

  // Every payload byte is checked once, here, before any of it is used.
  for (const Section& s : table) {
    if (&s != meta && xxh64(mapping->at(s.offset), s.bytes) != s.checksum) {
      return problem(
          ImageProblem::kCorrupt,
          "checksum mismatch in section " + std::string(s.name, strnlen(s.name, sizeof s.name)));
    }
  }

  std::shared_ptr<const void> keep = mapping;
  bool complete = true;
  for_each_column(columns, [&](const char* name, auto& column) {
    using T = typename std::remove_reference_t<decltype(column)>::value_type;
    const Section* s = find(table, name);
    if (s == nullptr || s->bytes % sizeof(T) != 0) {
      complete = false;
      return;
    }
    column = std::remove_reference_t<decltype(column)>::view(
        reinterpret_cast<const T*>(mapping->at(s->offset)), s->bytes / sizeof(T), keep);
  });
  const Section* ends = find(table, "names.ends");
  const Section* text = find(table, "names.text");
  if (!complete || ends == nullptr || text == nullptr || ends->bytes % 8 != 0 || ends->bytes == 0)
    return problem(ImageProblem::kCorrupt, "a section is missing or misshapen");
  std::span<const std::uint64_t> end_offsets(
      reinterpret_cast<const std::uint64_t*>(mapping->at(ends->offset)), ends->bytes / 8);
  std::uint64_t previous = 0;
  for (std::uint64_t end : end_offsets) {
    if (end < previous || end > text->bytes) {
      return problem(ImageProblem::kCorrupt, "its string table is damaged");
    }
    previous = end;
  }
  if (end_offsets[0] != 0) return problem(ImageProblem::kCorrupt, "its string table is damaged");
  columns.names = StringPool::view(end_offsets, mapping->at(text->offset), keep);
  if (const Section* gzip = find(table, "gzip_index"); gzip != nullptr && gzip->bytes > 0) {
    auto index = std::make_shared<GzipIndex>();
    if (!decode_gzip_index(std::string_view(mapping->at(gzip->offset), gzip->bytes), *index))
      return problem(ImageProblem::kCorrupt, "its gzip index does not decode");
    columns.gzip_index = std::move(index);
  }
  if (!read_shapes(table, *mapping, columns.names.size(), columns.shapes))
    return problem(ImageProblem::kCorrupt, "its shape table is damaged");
  if (!consistent(columns, report))
    return problem(ImageProblem::kCorrupt, "its columns disagree in size");
  if (finish) finish(report);
  return OpenedImage{
      std::make_shared<const Heap>(std::move(columns), std::move(report)), ImageProblem::kNone, {}};
}

std::optional<ImageSummary> peek_heap_image(const std::string& image_path) {
  Fd file{::open(image_path.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat info {};
  if (file.fd < 0 || ::fstat(file.fd, &info) != 0 || info.st_size <= 0) return std::nullopt;
  const auto file_bytes = static_cast<std::uint64_t>(info.st_size);
  auto mapping = std::make_shared<Mapping>();
  mapping->base = ::mmap(nullptr, file_bytes, PROT_READ, MAP_SHARED, file.fd, 0);
  if (mapping->base == MAP_FAILED) return std::nullopt;
  mapping->bytes = file_bytes;
  std::vector<Section> table;
  std::string why;
  if (check_head(mapping->at(0), file_bytes, table, why) != ImageProblem::kNone)
    return std::nullopt;
  const Section* meta = find(table, "meta");
  if (meta == nullptr || xxh64(mapping->at(meta->offset), meta->bytes) != meta->checksum)
    return std::nullopt;
  ImageSummary summary;
  LoadReport report;
  std::vector<RootCategory> roots;
  if (!decode_meta(std::string_view(mapping->at(meta->offset), meta->bytes), summary.key, report,
                   roots))
    return std::nullopt;
  summary.objects = report.objects;
  summary.image_bytes = file_bytes;
  return summary;
}

}  // namespace heapleak::image
