#include "core/reading/record_parser.h"

#include <simdjson.h>

#include <cstring>
#include <functional>

namespace heapleak {
namespace od = simdjson::ondemand;

namespace {

// Keys and type names are compared by length, then by two overlapping loads
// of the first and last bytes against the literal's (folded to constants):
// string_view's == ends in a memcmp call for lengths that are not powers of
// two, once per field of every record.
template <class Word>
Word load_word(const char* bytes) {
  Word word;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

template <std::size_t N>
bool equals(std::string_view text, const char (&name)[N]) {
  constexpr std::size_t kLength = N - 1;
  static_assert(kLength <= 16, "compare longer names with ==");
  if (text.size() != kLength) return false;
  if constexpr (kLength >= 8) {
    return load_word<std::uint64_t>(text.data()) == load_word<std::uint64_t>(name) &&
           load_word<std::uint64_t>(text.data() + kLength - 8) ==
               load_word<std::uint64_t>(name + kLength - 8);
  } else if constexpr (kLength >= 4) {
    return load_word<std::uint32_t>(text.data()) == load_word<std::uint32_t>(name) &&
           load_word<std::uint32_t>(text.data() + kLength - 4) ==
               load_word<std::uint32_t>(name + kLength - 4);
  } else {
    return std::memcmp(text.data(), name, kLength) == 0;
  }
}

// `key` points just past a key's opening quote; keys in Ruby dumps never
// hold escapes, so the key is `name` when its bytes are followed by the
// closing quote. No scan for the quote: the bytes read lie in the line or in
// the padding after it.
template <std::size_t N>
bool key_is(const char* key, const char (&name)[N]) {
  return equals(std::string_view(key, N - 1), name) && key[N - 1] == '"';
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

// Eight hex digits (first digit in the lowest byte) -> their 32-bit value,
// eight lanes at a time (SWAR). `used` has 0xff in the bytes that must be
// digits; false when one of them is not [0-9a-fA-F].
bool hex8(std::uint64_t chars, std::uint64_t used, std::uint32_t& value) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  // Per byte, for bytes below 0x80: high bit set when byte >= k (no carry
  // crosses lanes, since byte + 0x80 - k stays below 0x100).
  auto at_least = [&](std::uint64_t bytes, std::uint8_t k) {
    return (bytes + kOnes * (0x80 - k)) & kHigh;
  };
  const std::uint64_t folded = chars | kOnes * 0x20;  // 'A'-'F' -> 'a'-'f'
  const std::uint64_t digit = at_least(chars, '0') & ~at_least(chars, '9' + 1);
  const std::uint64_t letter = at_least(folded, 'a') & ~at_least(folded, 'f' + 1);
  if (((chars & kHigh) | (~(digit | letter) & kHigh)) & used) return false;
  // '0'-'9' -> low nibble; letters (bit 6 set) -> low nibble + 9.
  std::uint64_t v = (chars & kOnes * 0x0f) + ((chars >> 6) & kOnes) * 9;
  v = ((v & 0x000f000f000f000full) << 4) | ((v & 0x0f000f000f000f00ull) >> 8);
  v = ((v & 0x000000ff000000ffull) << 8) | ((v & 0x00ff000000ff0000ull) >> 16);
  value = static_cast<std::uint32_t>(((v & 0xffff) << 16) | ((v >> 32) & 0xffff));
  return true;
}

// parse_address's rules ("0x" or "0X", then 1-16 hex digits), eight digits
// at a time. Reads 16 bytes from the first digit whatever the length: the
// text lies in a parsed line, which has at least 64 readable bytes after it.
bool parse_padded_address(std::string_view text, Address& out) {
  if (text.size() < 3 || text.size() > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return false;
  const std::size_t digits = text.size() - 2;
  const std::uint64_t low_chars = load_word<std::uint64_t>(text.data() + 2);
  const std::uint64_t high_chars = load_word<std::uint64_t>(text.data() + 10);
  auto used_bytes = [](std::size_t count) {
    return count >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * count)) - 1;
  };
  std::uint32_t low = 0, high = 0;
  if (!hex8(low_chars, used_bytes(digits), low)) return false;
  if (digits <= 8) {
    out = low >> (4 * (8 - digits));
    return true;
  }
  if (!hex8(high_chars, used_bytes(digits - 8), high)) return false;
  out = (static_cast<Address>(low) << (4 * (digits - 8))) |
        (static_cast<Address>(high) >> (4 * (16 - digits)));
  return true;
}

bool read_address(od::value value, Address& out) {
  std::string_view text;
  return read_raw_string(value, text) && parse_padded_address(text, out);
}

bool read_string(od::value value, std::string_view& out) { return !value.get_string().get(out); }

bool read_uint(od::value value, std::uint64_t& out) {
  // Ruby writes non-negative integers here; a float or junk marks the line broken.
  return !value.get_uint64().get(out);
}

// `count_rest`: with first_only, still count the other elements (skipped,
// not parsed) into `count`; in full loads `out` has them all.
bool read_references(od::value value, bool first_only, bool count_rest, std::vector<Address>& out,
                     std::uint64_t& count) {
  od::array array;
  if (value.get_array().get(array)) return false;
  for (auto element : array) {
    if (first_only && !out.empty()) {
      ++count;
      continue;
    }
    od::value item;
    if (std::move(element).get(item)) return false;
    Address address;
    if (!read_address(item, address)) return false;
    out.push_back(address);
    ++count;
    if (first_only && !count_rest) break;
  }
  return true;
}

}  // namespace

bool counts_references(ObjectType type) {
  return type == ObjectType::kData || type == ObjectType::kClass || type == ObjectType::kModule ||
         type == ObjectType::kObject || type == ObjectType::kStruct;
}

void DumpRecord::clear() {
  kind = RecordKind::kBroken;
  address = 0;
  type = ObjectType::kUnknown;
  class_address = 0;
  references.clear();
  memsize = 0;
  // One assignment each: a chain (a = b = {}) stores one view and reads it
  // back as 16 bytes for the next, a store-forwarding stall that took ~13%
  // of parse()'s samples.
  own_name = {};
  root_name = {};
  file = {};
  method = {};
  line = generation = 0;
  has_line = has_generation = has_length = false;
  reference_count = 0;
  value_hash = 0;
  length = 0;
  shape_id = shape_parent = 0;
  has_shape_id = has_shape_parent = too_complex_shape = false;
  shape_type = {};
  edge_name = {};
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

RecordParser::RecordParser(LoadMode mode)
    : impl_(std::make_unique<Impl>()), all_references_(mode == LoadMode::kFull) {}
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
    const char* const key = field.key().raw();
    od::value value = field.value();
    switch (key[0]) {
      case 'a':
        if (key_is(key, "address")) ok = has_address = read_address(value, out.address);
        break;
      case 't':
        if (key_is(key, "type")) {
          std::string_view type;
          ok = has_type = read_raw_string(value, type);
          if (equals(type, "ROOT")) {
            is_root = true;
          } else if (equals(type, "SHAPE")) {
            is_shape = true;
          } else {
            out.type = parse_object_type(type);
          }
        } else if (equals(std::string_view(key, 16), "too_complex_shap") &&
                   std::memcmp(key + 16, "e\"", 2) == 0) {  // 17 letters: past equals()

          ok = !value.get_bool().get(out.too_complex_shape);
        }
        break;
      case 'c':
        if (key_is(key, "class")) ok = read_address(value, out.class_address);
        break;
      case 'r':
        if (key_is(key, "references")) {
          const bool first_only = !all_references_ && !is_root;
          ok = read_references(value, first_only, first_only && counts_references(out.type),
                               out.references, out.reference_count);
        } else if (key_is(key, "root")) {
          ok = read_string(value, out.root_name);
        }
        break;
      case 'm':
        if (key_is(key, "memsize")) {
          ok = read_uint(value, out.memsize);
        } else if (key_is(key, "method")) {
          ok = read_string(value, out.method);
        }
        break;
      case 'n':
        if (key_is(key, "name")) ok = read_string(value, out.own_name);
        break;
      case 's':
        if (key_is(key, "struct")) {
          ok = read_string(value, out.own_name);
        } else if (key_is(key, "size")) {
          ok = out.has_length = read_uint(value, out.length);
        } else if (key_is(key, "shape_id")) {
          ok = out.has_shape_id = read_uint(value, out.shape_id);
        } else if (key_is(key, "shape_type")) {
          ok = read_string(value, out.shape_type);
        }
        break;
      case 'i':
        if (key_is(key, "imemo_type")) {
          ok = read_string(value, out.own_name);
        } else if (key_is(key, "id") && is_shape) {
          ok = out.has_shape_id = read_uint(value, out.shape_id);
        }
        break;
      case 'p':
        if (key_is(key, "parent_id"))
          ok = out.has_shape_parent = read_uint(value, out.shape_parent);
        break;
      case 'e':
        if (key_is(key, "edge_name")) ok = read_string(value, out.edge_name);
        break;
      case 'f':
        if (key_is(key, "file")) ok = read_string(value, out.file);
        break;
      case 'l':
        if (key_is(key, "line")) {
          ok = out.has_line = read_uint(value, out.line);
        } else if (key_is(key, "length")) {
          ok = out.has_length = read_uint(value, out.length);
        }
        break;
      case 'b':
        // A STRING's bytesize: how a buffer appended to grows (its memsize
        // follows the capacity, which doubles, so it may not move B -> C).
        if (key_is(key, "bytesize")) ok = out.has_length = read_uint(value, out.length);
        break;
      case 'g':
        if (key_is(key, "generation")) ok = out.has_generation = read_uint(value, out.generation);
        break;
      case 'v':
        if (key_is(key, "value")) {
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
