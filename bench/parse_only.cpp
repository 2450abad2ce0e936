// heapleak-parse-only [--dom | --records full|identity] FILE: the floor for
// loading a plain dump. Reads the file in 4 MiB blocks and parses every line,
// keeping nothing: by default simdjson On Demand visiting every key (values
// skipped, as cheap as a pass can be), with --dom a full DOM parse that
// validates every value, with --records heapleak's own RecordParser in that
// load mode: the parse a load does, without building anything.
// Prints MB/s and lines.
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/reading/record_parser.h"

int main(int argc, char** argv) {
  const bool dom = argc == 3 && std::string(argv[1]) == "--dom";
  const bool records = argc == 4 && std::string(argv[1]) == "--records" &&
                       (std::string(argv[2]) == "full" || std::string(argv[2]) == "identity");
  if (argc != 2 && !dom && !records) {
    std::fprintf(stderr,
                 "usage: heapleak-parse-only [--dom | --records full|identity] FILE (plain, not "
                 "gzip)\n");
    return 2;
  }
  heapleak::RecordParser record_parser(records && std::string(argv[2]) == "identity"
                                           ? heapleak::LoadMode::kIdentityOnly
                                           : heapleak::LoadMode::kFull);
  heapleak::DumpRecord record;
  const char* path = argv[argc - 1];
  std::FILE* file = std::fopen(path, "rb");
  if (!file) {
    std::perror(path);
    return 3;
  }
  simdjson::dom::parser dom_parser;
  const auto started = std::chrono::steady_clock::now();
  simdjson::ondemand::parser parser;
  constexpr std::size_t kBlock = std::size_t{4} << 20;
  std::vector<char> buffer(kBlock * 2 + simdjson::SIMDJSON_PADDING);
  std::size_t carry = 0, bytes = 0, lines = 0, fields = 0, broken = 0;
  for (;;) {
    if (buffer.size() < carry + kBlock + simdjson::SIMDJSON_PADDING)
      buffer.resize(carry + kBlock + simdjson::SIMDJSON_PADDING);
    const std::size_t got = std::fread(buffer.data() + carry, 1, kBlock, file);
    const std::size_t filled = carry + got;
    bytes += got;
    const char* line = buffer.data();
    const char* end = buffer.data() + filled;
    for (;;) {
      const char* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
      if (!newline) {
        if (got != 0) break;
        newline = end;
        if (line == end) break;
      }
      ++lines;
      if (records) {
        record_parser.parse(line, newline - line, buffer.data() + buffer.size() - line, record);
        if (record.kind == heapleak::RecordKind::kBroken) ++broken;
        fields += record.references.size();
        line = newline + 1;
        if (line >= end) break;
        continue;
      }
      if (dom) {
        simdjson::dom::element element;
        if (dom_parser.parse(line, newline - line, false).get(element)) ++broken;
        line = newline + 1;
        if (line >= end) break;
        continue;
      }
      simdjson::ondemand::document doc;
      simdjson::ondemand::object object;
      if (parser
              .iterate(simdjson::padded_string_view(line, newline - line,
                                                    buffer.data() + buffer.size() - line))
              .get(doc) ||
          doc.get_object().get(object)) {
        ++broken;
      } else {
        for (auto field : object) {
          simdjson::ondemand::raw_json_string key;
          if (field.key().get(key)) {
            ++broken;
            break;
          }
          ++fields;
        }
      }
      line = newline + 1;
      if (line >= end) break;
    }
    carry = line < end ? static_cast<std::size_t>(end - line) : 0;
    std::memmove(buffer.data(), line, carry);
    if (got == 0) break;
  }
  std::fclose(file);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("parse-only%s: %zu bytes, %zu lines, %zu fields, %zu broken, %.3f s, %.0f MB/s\n",
              dom       ? " (dom)"
              : records ? " (records)"
                        : "",
              bytes, lines, fields, broken, seconds, bytes / 1e6 / seconds);
  return 0;
}
