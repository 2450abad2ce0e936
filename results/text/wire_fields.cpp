#include "results/text/wire_fields.h"

#include <utility>

#include "results/text/human_bytes.h"
#include "results/text/terminal_safe.h"

namespace heapleak::text {
namespace json = boost::json;

const json::value* member(const json::value& object, std::string_view key) {
  return object.is_object() ? object.as_object().if_contains(key) : nullptr;
}

std::string raw(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

std::string field(const json::value& object, std::string_view key) {
  return shown(raw(object, key));
}

std::uint64_t num(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  if (!value) return 0;
  if (value->is_uint64()) return value->as_uint64();
  if (value->is_int64())
    return value->as_int64() < 0 ? 0 : static_cast<std::uint64_t>(value->as_int64());
  if (value->is_double() && value->as_double() > 0)
    return static_cast<std::uint64_t>(value->as_double());
  return 0;
}

bool flag(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  return value && value->is_bool() && value->as_bool();
}

const json::array& list(const json::value& object, std::string_view key) {
  static const json::array kEmpty;
  const json::value* value = member(object, key);
  return value && value->is_array() ? value->as_array() : kEmpty;
}

std::string count_of(const json::value& object, std::string_view key) {
  return grouped(num(object, key));
}

std::string bytes_of(const json::value& object, std::string_view key) {
  return human_bytes(static_cast<double>(num(object, key)));
}

std::string counted(std::uint64_t n, std::string_view one, std::string_view many) {
  return grouped(n) + " " + std::string(n == 1 ? one : many);
}

std::string location(const json::value& brief) {
  const std::string file = field(brief, "file");
  if (file.empty()) return {};
  return file + ":" + std::to_string(num(brief, "line"));
}

std::string describe(const json::value& brief) {
  std::string name = field(brief, "name");
  if (name.empty()) name = field(brief, "class");
  if (name.empty()) name = field(brief, "type");
  std::string text = field(brief, "address") + " " + name;
  if (auto where = location(brief); !where.empty()) text += " (" + where + ")";
  return text;
}

std::string ruby_key(std::string_view key) {
  static constexpr std::pair<std::string_view, std::string_view> kBuiltIn[] = {
      {"OBJECT", "Object"},  {"STRING", "String"},     {"ARRAY", "Array"},
      {"HASH", "Hash"},      {"SYMBOL", "Symbol"},     {"FLOAT", "Float"},
      {"BIGNUM", "Integer"}, {"RATIONAL", "Rational"}, {"COMPLEX", "Complex"},
      {"REGEXP", "Regexp"},  {"MATCH", "MatchData"},   {"FILE", "IO"},
      {"STRUCT", "Struct"}};
  for (const auto& [type, name] : kBuiltIn)
    if (key == type) return std::string(name);
  for (std::string_view prefix : {"CLASS:", "MODULE:"}) {
    if (key.substr(0, prefix.size()) != prefix) continue;
    const std::string_view name = key.substr(prefix.size());
    if (name == "(anonymous)")
      return prefix == "CLASS:" ? "(anonymous class)" : "(anonymous module)";
    return shown(name);
  }
  return shown(key);
}

std::string heap_label(const json::value& result, std::string_view role) {
  if (result.is_object()) {
    if (const json::value* files = result.as_object().if_contains("files"))
      if (std::string file = field(*files, role); !file.empty()) return file;
  }
  if (std::string file = field(result, std::string(role) + "File"); !file.empty()) return file;
  return field(result, role);
}

std::string cut(const std::string& text, std::size_t columns) {
  std::size_t seen = 0;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if ((static_cast<unsigned char>(text[k]) & 0xC0) == 0x80) continue;
    if (seen++ == columns) return text.substr(0, k) + "...";
  }
  return text;
}

std::vector<std::string> strings_of(const json::value& object, std::string_view key) {
  std::vector<std::string> out;
  for (const json::value& item : list(object, key))
    if (item.is_string()) out.push_back(shown(item.as_string()));
  return out;
}

std::string joined(const json::value& object, std::string_view key, std::string_view separator) {
  std::string text;
  for (const std::string& item : strings_of(object, key)) {
    if (!text.empty()) text += separator;
    text += item;
  }
  return text;
}

}  // namespace heapleak::text
