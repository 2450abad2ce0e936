// libFuzzer target: RecordParser::parse on one arbitrary "line", given exactly
// length + 64 readable bytes (the padding the loader guarantees) so ASan
// catches any read past it. Both parser modes; every view it returns is read;
// the padding's content (in the loader: the next line) must not change the result.
#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/reading/record_parser.h"
#include "fuzz_check.h"

namespace {

volatile std::uint64_t g_sink;

void touch(std::string_view view) {
  std::uint64_t sum = 0;
  for (char c : view) sum += static_cast<unsigned char>(c);
  g_sink = g_sink + sum;
}

void check(const heapleak::DumpRecord& record) {
  touch(record.own_name);
  touch(record.root_name);
  touch(record.file);
  touch(record.method);
  FUZZ_CHECK(!(record.kind == heapleak::RecordKind::kBroken && record.broken_reason == nullptr),
             "record.kind == heapleak::RecordKind::kBroken && record.broken_reason == nullptr");
  if (record.broken_reason) touch(record.broken_reason);
  for (auto address : record.references) g_sink = g_sink + address;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static heapleak::RecordParser all(heapleak::LoadMode::kFull);
  static heapleak::RecordParser first_only(heapleak::LoadMode::kIdentityOnly);
  std::vector<char> buffer(size + 64, '\0');
  if (size) std::memcpy(buffer.data(), data, size);
  heapleak::DumpRecord record;
  all.parse(buffer.data(), size, buffer.size(), record);
  check(record);
  const auto kind = record.kind;
  const auto address = record.address;
  const auto references = record.references;
  // Same line, followed by what a real next line looks like.
  static const char kNext[] =
      "\n{\"address\":\"0x7f00\", \"type\":\"STRING\", \"references\":[\"0x1\"]}\n\"]}";
  for (std::size_t i = 0; i < 64; ++i) buffer[size + i] = kNext[i % (sizeof kNext - 1)];
  all.parse(buffer.data(), size, buffer.size(), record);
  check(record);
  FUZZ_CHECK(!(record.kind != kind || record.address != address || record.references != references),
             "the padding after the line (the next line, in the loader) changed the result");
  heapleak::DumpRecord short_record;
  first_only.parse(buffer.data(), size, buffer.size(), short_record);
  check(short_record);
  // Both modes agree on a good line that is valid JSON. (A line whose
  // reference list breaks after the first entry is broken to the full parser
  // but fine to the first-only one, which skips the rest unparsed: by design,
  // see record_parser.h. And On Demand does not validate all it skips, so on
  // invalid JSON either mode may accept what the other refuses: the fuzzer
  // found `"references":["0x11","0x12":0"memsize":8432}, ...]` accepted in
  // full and refused first-only; both are garbage in, counted either way.)
  static simdjson::dom::parser validator;
  if (record.kind != heapleak::RecordKind::kBroken &&
      validator.parse(buffer.data(), size, /*realloc_if_needed=*/true).error() ==
          simdjson::SUCCESS) {
    FUZZ_CHECK(record.kind == short_record.kind && record.address == short_record.address,
               "full and identity-only modes disagree on the kind or address of a good line");
  }
  return 0;
}
