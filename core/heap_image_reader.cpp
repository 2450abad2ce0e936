#include "core/heap_image_reader.h"

#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/heap_image_format.h"
#include "core/image_file.h"

namespace heapleak::image {
namespace {

OpenedImage problem(ImageProblem kind, std::string why) {
  return OpenedImage{nullptr, kind, std::move(why)};
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
bool read_shapes(const MappedFile& file, std::size_t names, ShapeTable& shapes) {
  const Mapping& mapping = *file.mapping;
  const Section* parent = file.find("shapes.parent");
  const Section* kind = file.find("shapes.kind");
  const Section* edge_name = file.find("shapes.edge_name");
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

OpenedImage open_heap_image(
    const std::string& image_path, const ImageKey& expected,
    const std::function<void(LoadReport&, std::uint64_t table_checksum)>& finish) {
  MappedFile file = map_image_file(image_path, kMagic, kHeapImageVersion);
  if (file.problem != FileProblem::kNone)
    return problem(image_problem(file.problem),
                   file.problem == FileProblem::kMissing ? "no image" : file.why);
  const std::shared_ptr<Mapping>& mapping = file.mapping;

  // The key first, so a stale image costs no payload reading.
  const Section* meta = file.find("meta");
  if (meta == nullptr || !file.intact(*meta))
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
  if (const Section* s = file.first_damaged(meta)) {
    return problem(
        ImageProblem::kCorrupt,
        "checksum mismatch in section " + std::string(s->name, strnlen(s->name, sizeof s->name)));
  }

  std::shared_ptr<const void> keep = mapping;
  bool complete = true;
  for_each_column(columns, [&](const char* name, auto& column) {
    using T = typename std::remove_reference_t<decltype(column)>::value_type;
    const Section* s = file.find(name);
    if (s == nullptr || s->bytes % sizeof(T) != 0) {
      complete = false;
      return;
    }
    column = std::remove_reference_t<decltype(column)>::view(
        reinterpret_cast<const T*>(mapping->at(s->offset)), s->bytes / sizeof(T), keep);
  });
  const Section* ends = file.find("names.ends");
  const Section* text = file.find("names.text");
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
  if (const Section* gzip = file.find("gzip_index"); gzip != nullptr && gzip->bytes > 0) {
    auto index = std::make_shared<GzipIndex>();
    if (!decode_gzip_index(std::string_view(mapping->at(gzip->offset), gzip->bytes), *index))
      return problem(ImageProblem::kCorrupt, "its gzip index does not decode");
    columns.gzip_index = std::move(index);
  }
  if (!read_shapes(file, columns.names.size(), columns.shapes))
    return problem(ImageProblem::kCorrupt, "its shape table is damaged");
  if (!consistent(columns, report))
    return problem(ImageProblem::kCorrupt, "its columns disagree in size");
  if (finish) finish(report, file.header.table_checksum);
  return OpenedImage{std::make_shared<const Heap>(std::move(columns), std::move(report)),
                     ImageProblem::kNone,
                     {},
                     file.header.table_checksum};
}

std::optional<ImageSummary> peek_heap_image(const std::string& image_path) {
  MappedFile file = map_image_file(image_path, kMagic, kHeapImageVersion);
  if (file.problem != FileProblem::kNone) return std::nullopt;
  const Section* meta = file.find("meta");
  if (meta == nullptr || !file.intact(*meta)) return std::nullopt;
  const std::shared_ptr<Mapping>& mapping = file.mapping;
  ImageSummary summary;
  LoadReport report;
  std::vector<RootCategory> roots;
  if (!decode_meta(std::string_view(mapping->at(meta->offset), meta->bytes), summary.key, report,
                   roots))
    return std::nullopt;
  summary.objects = report.objects;
  summary.image_bytes = mapping->bytes;
  summary.table_checksum = file.header.table_checksum;
  return summary;
}

ImageProblem image_problem(FileProblem problem) {
  switch (problem) {
    case FileProblem::kNone:
      return ImageProblem::kNone;
    case FileProblem::kMissing:
      return ImageProblem::kMissing;
    case FileProblem::kVersion:
      return ImageProblem::kVersion;
    case FileProblem::kTruncated:
      return ImageProblem::kTruncated;
    case FileProblem::kCorrupt:
      break;
  }
  return ImageProblem::kCorrupt;
}

}  // namespace heapleak::image
