#include "clients/client/output.h"

#include <boost/json/serialize.hpp>
#include <fstream>

#include "clients/client/exit_codes.h"
#include "clients/client/terminal.h"

namespace heapleak::client {
namespace json = boost::json;

void print_json(std::ostream& out, const json::value& result) {
  out << json::serialize(result) << "\n";
}

const json::value* member(const json::value& object, std::string_view key) {
  return object.is_object() ? object.as_object().if_contains(key) : nullptr;
}

std::string str(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

std::uint64_t num(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  if (!value) return 0;
  if (value->is_uint64()) return value->as_uint64();
  if (value->is_int64())
    return value->as_int64() < 0 ? 0 : static_cast<std::uint64_t>(value->as_int64());
  if (value->is_double()) return static_cast<std::uint64_t>(value->as_double());
  return 0;
}

double real(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  return value && value->is_number() ? value->to_number<double>() : 0.0;
}

bool flag(const json::value& object, std::string_view key) {
  const json::value* value = member(object, key);
  return value && value->is_bool() && value->as_bool();
}

std::string location(const json::value& brief) {
  const std::string file = str(brief, "file");
  if (file.empty()) return {};
  return file + ":" + std::to_string(num(brief, "line"));
}

void write_file(const std::string& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out.flush()) throw ClientError{kExitDaemonError, "cannot write " + file};
}

std::string via_text(const json::value* via) {
  if (!via || !via->is_object()) return "";
  auto join = [](const json::value* names, const char* separator) {
    std::string text;
    if (!names || !names->is_array()) return text;
    for (const auto& name : names->as_array()) {
      if (!name.is_string()) continue;
      if (!text.empty()) text += separator;
      text += std::string(name.as_string());
    }
    return text;
  };
  const json::object& object = via->as_object();
  if (const json::value* ivar = object.if_contains("ivar"); ivar && ivar->is_string())
    return std::string(ivar->as_string());
  if (object.contains("ivars")) return join(object.if_contains("ivars"), " and ");
  if (object.contains("candidates"))
    return "one of " + join(object.if_contains("candidates"), ", ");
  return "";
}

std::vector<std::string> brief_row(const json::value& brief) {
  // The Ruby-facing name (UserCache, not the class's metaclass #<Class:0x...>);
  // a daemon from before `name` existed gives only `class`.
  std::string name = str(brief, "name");
  if (name.empty()) name = str(brief, "class");
  return {str(brief, "address"), str(brief, "type"), std::move(name),
          human_bytes(static_cast<double>(num(brief, "memsize"))), location(brief)};
}

std::string diff_heading(const boost::json::value& result) {
  const boost::json::value* files = member(result, "files");
  const boost::json::value& names = files ? *files : result;
  const std::string later = str(names, "later");
  return "new in " + str(names, "target") + " since " + str(names, "baseline") +
         (later.empty() ? std::string() : ", still alive in " + later);
}

}  // namespace heapleak::client
