#include "core/record_rescan.h"

#include <cstring>
#include <string>
#include <string_view>

#include "core/byte_source.h"
#include "core/record_parser.h"
#include "core/record_reader.h"

namespace heapleak {
namespace {

constexpr std::size_t kMaxLine = std::size_t{256} << 20;  // as record_reader.cpp

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
  RecordParser parser(LoadMode::kFull);
  DumpRecord record;
  std::string pending;    // a line cut by the end of a chunk
  bool overlong = false;  // dropping a line past the cap up to its newline
  std::vector<char> chunk(1 << 20);
  std::string padded;
  const auto take = [&](std::string_view line) {
    const auto address = leading_address(line);
    if (!address || !wanted.contains(*address) || out.contains(*address)) return;
    padded.assign(line);
    padded.append(64, ' ');  // the parser reads a little past the line
    parser.parse(padded.data(), line.size(), padded.size(), record);
    if (record.kind == RecordKind::kObject && record.address == *address)
      out.emplace(*address, record.references);
  };
  for (;;) {
    auto n = (*source)->read(chunk.data(), chunk.size());
    if (!n) return n.error();
    if (*n == 0) break;
    std::string_view data(chunk.data(), *n);
    while (!data.empty() && out.size() < wanted.size()) {
      const std::size_t newline = data.find('\n');
      if (newline == std::string_view::npos) {
        if (!overlong) pending.append(data);
        if (pending.size() > kMaxLine) overlong = true, pending.clear();
        break;
      }
      if (overlong) {
        overlong = false;
      } else if (pending.empty()) {
        take(data.substr(0, newline));
      } else {
        pending.append(data.substr(0, newline));
        take(pending);
        pending.clear();
      }
      data.remove_prefix(newline + 1);
    }
    if (out.size() == wanted.size()) break;
  }
  if (!pending.empty()) take(pending);
  return out;
}

}  // namespace heapleak
