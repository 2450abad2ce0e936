#include "core/heap/record_refs.h"

#include "core/base/address.h"
#include "core/heap/record_reader.h"

namespace heapleak {

std::optional<std::vector<ObjectIndex>> record_references(const Heap& heap, ObjectIndex i) {
  auto text = read_record_text(heap, i);
  if (!text) return std::nullopt;
  std::vector<ObjectIndex> out;
  const std::string& line = text.value();
  const std::size_t start = line.find("\"references\":[");
  if (start == std::string::npos) return out;
  const std::size_t end = line.find(']', start);
  for (std::size_t at = line.find("0x", start); at != std::string::npos && at < end;
       at = line.find("0x", at + 2)) {
    std::size_t stop = at + 2;
    while (stop < line.size() && std::isxdigit(static_cast<unsigned char>(line[stop]))) ++stop;
    if (auto address = parse_address(std::string_view(line).substr(at, stop - at)))
      if (auto j = heap.find(*address)) out.push_back(*j);
  }
  return out;
}

std::optional<std::string> string_value(const Heap& heap, ObjectIndex i) {
  if (heap.type(i) != ObjectType::kString) return std::nullopt;
  auto text = read_record_text(heap, i);
  if (!text) return std::nullopt;
  const std::string& line = text.value();
  const std::size_t start = line.find("\"value\":\"");
  if (start == std::string::npos) return std::nullopt;
  std::string value;
  for (std::size_t k = start + 9; k < line.size(); ++k) {
    const char c = line[k];
    if (c == '"') return value;
    if (c == '\\' && k + 1 < line.size()) {
      const char e = line[++k];
      value += e == 'n' ? '\n' : e == 't' ? '\t' : e;  // \uXXXX kept as its letters: labels only
      continue;
    }
    value += c;
  }
  return std::nullopt;
}

}  // namespace heapleak
