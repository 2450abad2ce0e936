// Test helper: forges cache files (core/images/image_file.h) as someone who may
// write the cache directory could: a value of a section is changed and every
// checksum recomputed, so only the reader's value checks stand in the way.
// Header-only: used by the Catch2 cache tests and the fuzz_cache_image target.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>

#include "core/base/checksum.h"
#include "core/images/heap_image_format.h"

namespace heapleak::test {

// The section table entry named `name` in a whole file's bytes, or nullptr.
inline image::Section* forge_section(std::string& bytes, std::string_view name) {
  if (bytes.size() < sizeof(image::Header)) return nullptr;
  image::Header header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.section_count > image::kMaxSections ||
      sizeof header + header.section_count * sizeof(image::Section) > bytes.size())
    return nullptr;
  auto* table = reinterpret_cast<image::Section*>(bytes.data() + sizeof header);
  for (std::uint32_t k = 0; k < header.section_count; ++k) {
    if (std::string_view(table[k].name, strnlen(table[k].name, sizeof table[k].name)) == name)
      return &table[k];
  }
  return nullptr;
}

// Recomputes every section's checksum (those inside the file) and the table's.
inline void forge_checksums(std::string& bytes) {
  if (bytes.size() < sizeof(image::Header)) return;
  image::Header header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.section_count > image::kMaxSections ||
      sizeof header + header.section_count * sizeof(image::Section) > bytes.size())
    return;
  auto* table = reinterpret_cast<image::Section*>(bytes.data() + sizeof header);
  for (std::uint32_t k = 0; k < header.section_count; ++k) {
    image::Section& s = table[k];
    if (s.offset <= bytes.size() && s.bytes <= bytes.size() - s.offset)
      s.checksum = xxh64(bytes.data() + s.offset, s.bytes);
  }
  header.table_checksum = 0;
  std::memcpy(bytes.data(), &header, sizeof header);
  header.table_checksum =
      xxh64(bytes.data(), sizeof header + header.section_count * sizeof(image::Section));
  std::memcpy(bytes.data(), &header, sizeof header);
}

// Sets value `index` (of type T) of section `name`, checksums recomputed.
// False when there is no such section or value.
template <class T>
bool forge_value(std::string& bytes, std::string_view name, std::uint64_t index, T value) {
  image::Section* s = forge_section(bytes, name);
  if (s == nullptr || (index + 1) * sizeof(T) > s->bytes) return false;
  std::memcpy(bytes.data() + s->offset + index * sizeof(T), &value, sizeof value);
  forge_checksums(bytes);
  return true;
}

template <class T>
T forged_value(std::string& bytes, std::string_view name, std::uint64_t index) {
  T value{};
  if (image::Section* s = forge_section(bytes, name); s && (index + 1) * sizeof(T) <= s->bytes)
    std::memcpy(&value, bytes.data() + s->offset + index * sizeof(T), sizeof value);
  return value;
}

inline std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_whole(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace heapleak::test
