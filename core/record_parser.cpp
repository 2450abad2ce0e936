#include "core/record_parser.h"

#include <simdjson.h>

#include <cstring>
#include <functional>

namespace heapleak {
namespace od = simdjson::ondemand;

namespace {

// Keys in Ruby dumps never contain escapes: read the raw key up to its quote.
std::string_view raw_key(od::field& field) {
  const char* start = field.key().raw();
  const char* end = start;
  while (*end != '"') ++end;
  return std::string_view(start, static_cast<std::size_t>(end - start));
}

// simdjson's raw token runs up to the next token, spaces included.
std::string_view trimmed_token(od::value value) {
  std::string_view token = value.raw_json_token();
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t' || token.back() == '\r')) {
    token.remove_suffix(1);
  }
  return token;
}

// A string token without its quotes; strings hold no escapes where we use this.
bool read_raw_string(od::value value, std::string_view& out) {
  const std::string_view token = trimmed_token(value);
  if (token.size() < 2 || token.front() != '"' || token.back() != '"') return false;
  out = token.substr(1, token.size() - 2);
  return true;
}

bool read_address(od::value value, Address& out) {
  std::string_view text;
  if (!read_raw_string(value, text)) return false;
  auto parsed = parse_address(text);
  if (!parsed) return false;
  out = *parsed;
  return true;
}

bool read_string(od::value value, std::string_view& out) {
  return !value.get_string().get(out);
}

bool read_uint(od::value value, std::uint64_t& out) {
  // Ruby writes non-negative integers here; a float or junk marks the line broken.
  return !value.get_uint64().get(out);
}

bool read_references(od::value value, bool first_only, std::vector<Address>& out) {
  od::array array;
  if (value.get_array().get(array)) return false;
  for (auto element : array) {
    od::value item;
    if (std::move(element).get(item)) return false;
    Address address;
    if (!read_address(item, address)) return false;
    out.push_back(address);
    if (first_only) break;
  }
  return true;
}

}  // namespace

void DumpRecord::clear() {
  kind = RecordKind::kBroken;
  address = 0;
  type = ObjectType::kUnknown;
  class_address = 0;
  references.clear();
  memsize = 0;
  own_name = root_name = file = method = {};
  line = generation = 0;
  has_line = has_generation = false;
  value_hash = 0;
  broken_reason = nullptr;
}

std::uint32_t fingerprint(std::string_view token) {
  auto h = static_cast<std::uint64_t>(std::hash<std::string_view>{}(token));
  auto folded = static_cast<std::uint32_t>(h ^ (h >> 32));
  return folded == 0 ? 1 : folded;
}

struct RecordParser::Impl {
  od::parser parser;
};

RecordParser::RecordParser(bool all_references)
    : impl_(std::make_unique<Impl>()), all_references_(all_references) {}
RecordParser::~RecordParser() = default;

void RecordParser::parse(const char* line, std::size_t length, std::size_t capacity,
                         DumpRecord& out) {
  out.clear();
  while (length > 0 && (line[length - 1] == '\r' || line[length - 1] == ' ')) --length;
  std::size_t lead = 0;
  while (lead < length && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
  if (lead == length) {
    out.kind = RecordKind::kBlank;
    return;
  }
  // Ruby bug #6161 writes raw NUL bytes into lines; JSON forbids them.
  if (std::memchr(line, '\0', length) != nullptr) {
    out.broken_reason = "NUL byte inside the line";
    return;
  }
  od::document doc;
  if (impl_->parser.iterate(simdjson::padded_string_view(line, length, capacity)).get(doc)) {
    out.broken_reason = "not valid JSON";
    return;
  }
  od::object object;
  if (doc.get_object().get(object)) {
    out.broken_reason = "not a JSON object";
    return;
  }
  bool has_address = false;
  bool has_type = false;
  bool is_root = false;
  bool is_shape = false;
  bool ok = true;
  for (auto result : object) {
    od::field field;
    if (std::move(result).get(field)) {
      ok = false;
      break;
    }
    const std::string_view key = raw_key(field);
    od::value value = field.value();
    switch (key.empty() ? '\0' : key[0]) {
      case 'a':
        if (key == "address") ok = has_address = read_address(value, out.address);
        break;
      case 't':
        if (key == "type") {
          std::string_view type;
          ok = has_type = read_raw_string(value, type);
          if (type == "ROOT") {
            is_root = true;
          } else if (type == "SHAPE") {
            is_shape = true;
          } else {
            out.type = parse_object_type(type);
          }
        }
        break;
      case 'c':
        if (key == "class") ok = read_address(value, out.class_address);
        break;
      case 'r':
        if (key == "references") {
          ok = read_references(value, !all_references_ && !is_root, out.references);
        } else if (key == "root") {
          ok = read_string(value, out.root_name);
        }
        break;
      case 'm':
        if (key == "memsize") {
          ok = read_uint(value, out.memsize);
        } else if (key == "method") {
          ok = read_string(value, out.method);
        }
        break;
      case 'n':
        if (key == "name") ok = read_string(value, out.own_name);
        break;
      case 's':
        if (key == "struct") ok = read_string(value, out.own_name);
        break;
      case 'i':
        if (key == "imemo_type") ok = read_string(value, out.own_name);
        break;
      case 'f':
        if (key == "file") ok = read_string(value, out.file);
        break;
      case 'l':
        if (key == "line") ok = out.has_line = read_uint(value, out.line);
        break;
      case 'g':
        if (key == "generation") ok = out.has_generation = read_uint(value, out.generation);
        break;
      case 'v':
        if (key == "value") {
          out.value_hash = fingerprint(trimmed_token(value));
        }
        break;
      default:
        break;
    }
    if (!ok) break;
  }
  // Anything left after the object (a second record glued on, junk) breaks the line.
  const bool at_end = doc.current_location().error() == simdjson::OUT_OF_BOUNDS;
  if (!ok || !at_end) {
    out.broken_reason = "malformed or truncated record";
    return;
  }
  if (!has_type) {
    out.broken_reason = "record without a type";
    return;
  }
  if (is_root) {
    out.kind = RecordKind::kRoot;
    return;
  }
  if (!has_address) {
    out.broken_reason = "object record without an address";
    return;
  }
  out.kind = is_shape ? RecordKind::kShape : RecordKind::kObject;
}

}  // namespace heapleak
