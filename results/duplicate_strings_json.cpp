#include "results/duplicate_strings_json.h"

#include "core/heap/record_reader.h"
#include "results/object_brief_json.h"
#include "results/text/utf8_text.h"

namespace heapleak::results {
namespace json = boost::json;

json::value string_value_json(const Heap& heap, ObjectIndex i) {
  auto text = read_record_text(heap, i);
  if (!text) return nullptr;
  boost::system::error_code error;
  json::value record = json::parse(*text, error);
  if (error || !record.is_object()) return nullptr;
  const json::value* value = record.as_object().if_contains("value");
  if (!value || !value->is_string()) return nullptr;
  std::string content(value->as_string());
  if (content.size() > 200) content = std::string(text::utf8_prefix(content, 200)) + "...";
  return json::value(content);
}

json::object duplicate_strings_json(const Heap& heap,
                                    const std::vector<DuplicateStrings>& strings) {
  json::array out;
  for (const auto& dup : strings) {
    out.push_back(json::object{{"value", string_value_json(heap, dup.samples.front())},
                               {"count", dup.count},
                               {"memsize", dup.memsize},
                               {"wasted", dup.wasted},
                               {"samples", addresses_json(heap, dup.samples)}});
  }
  return json::object{{"strings", std::move(out)}};
}

}  // namespace heapleak::results
