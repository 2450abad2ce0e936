#include "core/images/heap_image_reader.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/images/heap_image_format.h"
#include "core/images/image_file.h"

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

// Bytes [begin, end) of a section of T values: whether `ok` holds for each
// (a trailing partial value is left to the size checks that follow).
template <class T, class Ok>
ValueCheck each(Ok ok) {
  return [ok](const char* section, std::uint64_t begin, std::uint64_t end) {
    const T* values = reinterpret_cast<const T*>(section);
    bool all = true;  // no early exit: the loop vectorizes
    for (std::uint64_t k = begin / sizeof(T), last = end / sizeof(T); k < last; ++k)
      all &= ok(values[k]);
    return all;
  };
}

// Offsets into an array of `limit` items: 0 first, never decreasing, never past it.
template <class T>
ValueCheck ascending_offsets(std::uint64_t limit) {
  return [limit](const char* section, std::uint64_t begin, std::uint64_t end) {
    const T* values = reinterpret_cast<const T*>(section);
    std::uint64_t k = begin / sizeof(T);
    const std::uint64_t last = end / sizeof(T);
    if (k >= last) return true;
    bool all = k == 0 ? values[0] == 0 : values[k - 1] <= values[k];
    for (++k; k < last; ++k) all &= values[k - 1] <= values[k];
    return all && values[last - 1] <= limit;
  };
}

std::uint64_t section_bytes(const MappedFile& file, std::string_view name) {
  const Section* s = file.find(name);
  return s == nullptr ? 0 : s->bytes;
}

// What every value of the columns must satisfy for the heap's accessors to
// stay inside the image: string ids name a string, object indexes an object,
// CSR offsets ascend within their edges, types are known, addresses ascend
// (lookups bisect them). Checked while the sections are hashed.
ValueChecks value_checks(const MappedFile& file, std::uint64_t objects) {
  const std::uint64_t strings = section_bytes(file, "names.ends") / 8;
  const std::uint64_t text = section_bytes(file, "names.text");
  auto string_id = each<std::uint32_t>([strings](std::uint32_t id) { return id < strings; });
  auto object = each<ObjectIndex>([objects](ObjectIndex i) { return i < objects; });
  ValueChecks checks;
  checks.emplace_back("type", each<std::uint8_t>([](std::uint8_t t) {
                        return t <= static_cast<std::uint8_t>(ObjectType::kUndef);
                      }));
  checks.emplace_back("class_index", each<ObjectIndex>([objects](ObjectIndex i) {
                        return i < objects || i == kNoObject;
                      }));
  checks.emplace_back("own_name", string_id);
  checks.emplace_back("file", string_id);
  checks.emplace_back("method", string_id);
  checks.emplace_back("out_edges", object);
  checks.emplace_back("in_edges", object);
  checks.emplace_back("out_offsets",
                      ascending_offsets<std::uint32_t>(section_bytes(file, "out_edges") / 4));
  checks.emplace_back("in_offsets",
                      ascending_offsets<std::uint32_t>(section_bytes(file, "in_edges") / 4));
  checks.emplace_back("names.ends", ascending_offsets<std::uint64_t>(text));
  checks.emplace_back("address", [](const char* section, std::uint64_t begin, std::uint64_t end) {
    const Address* values = reinterpret_cast<const Address*>(section);
    bool all = true;
    for (std::uint64_t k = std::max<std::uint64_t>(begin / sizeof(Address), 1),
                       last = end / sizeof(Address);
         k < last; ++k)
      all &= values[k - 1] < values[k];
    return all;
  });
  return checks;
}

}  // namespace

OpenedImage open_heap_image(const std::string& image_path, const ImageKey& expected,
                            const std::function<void(LoadReport&, std::uint64_t table_checksum,
                                                     std::size_t root_categories)>& finish) {
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

  // Every payload byte is checked once, here, before any of it is used: its
  // checksum, and in the same pass every value a reader indexes with.
  if (Damage damage = file.first_damaged(meta, value_checks(file, report.objects)))
    return problem(ImageProblem::kCorrupt, damage.why());

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
  if (finish) finish(report, file.header.table_checksum, columns.roots.size());
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
