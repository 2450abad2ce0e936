#include "core/heap/record_rescan.h"

#include <cstring>
#include <string>
#include <string_view>

#include "core/heap/record_reader.h"
#include "core/reading/byte_source.h"
#include "core/reading/line_pipeline.h"
#include "core/reading/mapped_reads.h"
#include "core/reading/record_parser.h"

namespace heapleak {
namespace {

// ObjectSpace.dump_all writes `"address":"0x..."` first on every object line:
// read it there without parsing the line (the parser runs on the few lines asked for).
std::optional<Address> leading_address(std::string_view line) {
  constexpr std::string_view kKey = "\"address\":\"";
  const std::size_t at = line.substr(0, 48).find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t begin = at + kKey.size();
  const std::size_t end = line.find('"', begin);
  if (end == std::string_view::npos) return std::nullopt;
  return parse_address(line.substr(begin, end - begin));
}

}  // namespace

Result<std::unordered_map<Address, std::vector<Address>>> reread_references(
    const Heap& heap, const std::unordered_set<Address>& wanted) {
  std::unordered_map<Address, std::vector<Address>> out;
  if (wanted.empty()) return out;
  if (auto changed = dump_changed(heap)) return *changed;
  auto source = open_byte_source(heap.report().path);
  if (!source) return source.error();
  // The loader's line reader: whole lines with the parser's padding after
  // them, a plain file mapped, over-long lines dropped.
  LinePipeline pipeline(std::move(*source), nullptr);
  RecordParser parser(LoadMode::kFull);
  DumpRecord record;
  while (out.size() < wanted.size()) {
    auto block = pipeline.next();
    if (!block) break;
    const char* const base = block->data();
    const char* const end = base + block->size;
    const char* const buffer_end = base + block->readable();
    auto take_lines = [&] {
      for (const char* line = base; line < end && out.size() < wanted.size();) {
        const char* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
        const char* line_end = newline ? newline : end;
        const auto address = leading_address(std::string_view(line, line_end - line));
        if (address && wanted.contains(*address) && !out.contains(*address)) {
          parser.parse(line, line_end - line, buffer_end - line, record);
          if (record.kind == RecordKind::kObject && record.address == *address)
            out.emplace(*address, record.references);
        }
        line = line_end + 1;
      }
    };
    if (block->mapped == nullptr) {
      take_lines();
    } else if (!read_mapped(base, buffer_end, take_lines)) {
      return make_error(ErrorReason::kNotReadable,
                        heap.report().path + ": " + LinePipeline::kFileCutShort);
    }
    pipeline.recycle(std::move(block));
  }
  if (auto error = pipeline.error()) return *error;
  return out;
}

}  // namespace heapleak
