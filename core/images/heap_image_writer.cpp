#include "core/images/heap_image_writer.h"

#include <vector>

#include "core/images/heap_image_format.h"
#include "core/images/image_file.h"

namespace heapleak::image {

std::optional<std::string> write_heap_image(const Heap& heap, const ImageKey& key,
                                            const std::string& image_path,
                                            std::uint64_t* table_checksum) {
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
  Written written = write_image_file(image_path, kMagic, kHeapImageVersion,
                                     static_cast<std::uint32_t>(key.mode), parts);
  if (table_checksum != nullptr) *table_checksum = written.table_checksum;
  return written.error;
}

}  // namespace heapleak::image
