#include "clients/client/output.h"

#include <boost/json/serialize.hpp>
#include <iostream>

#include "clients/client/exit_codes.h"
#include "clients/client/table.h"
#include "clients/client/terminal.h"
#include "core/base/safe_write.h"

namespace heapleak::client {
namespace json = boost::json;

void print_json(std::ostream& out, const json::value& result) {
  out << json::serialize(result) << "\n";
}

void print_doc(const Terminal& term, const text::Doc& doc) {
  auto sgr = [](text::Tone tone) -> std::string {
    switch (tone) {
      case text::Tone::kHeading:
        return "1";
      case text::Tone::kObject:
        return "36";
      case text::Tone::kReason:
        return "33";
      case text::Tone::kPlain:
        break;
    }
    return "";
  };
  for (const auto& block : doc.blocks) {
    if (const text::Line* line = std::get_if<text::Line>(&block)) {
      for (const text::Span& span : line->spans) std::cout << term.paint(span.text, sgr(span.tone));
      std::cout << "\n";
      continue;
    }
    if (const text::Fields* fields = std::get_if<text::Fields>(&block)) {
      print_fields(std::cout, term, fields->rows);
      continue;
    }
    const text::Table& source = std::get<text::Table>(block);
    if (source.rows.empty()) continue;  // as text::plain: no rows, no title
    std::vector<Column> columns;
    for (const auto& column : source.columns)
      columns.push_back({column.title, column.right, column.flexible, sgr(column.tone)});
    Table table(std::move(columns));
    for (const auto& row : source.rows) table.add(row);
    table.print(std::cout, term);
  }
  std::cout.flush();
  for (const auto& warning : doc.warnings)
    std::cerr << "heapleak-client: warning: " << warning << "\n";
}

void write_file(const std::string& file, const std::string& text) {
  // The one safe path (core/base/safe_write.h): never through a planted link, into
  // a folder another user may write, or renamed over a device or FIFO.
  if (auto error = write_file_safely(file, text, SpecialTarget::kWriteThrough))
    throw ClientError{kExitCannotWrite, error->message};
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

}  // namespace heapleak::client
