#include "results/text/text_doc.h"

#include <algorithm>

namespace heapleak::text {
namespace {

constexpr std::size_t kGap = 2;

// One column per code point, as heapleak-client's tables count.
std::size_t width_of(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}

void append_table(std::string& out, const Table& table) {
  const std::size_t n = table.columns.size();
  std::vector<std::size_t> widths(n);
  for (std::size_t c = 0; c < n; ++c) widths[c] = width_of(table.columns[c].title);
  for (const auto& row : table.rows)
    for (std::size_t c = 0; c < n && c < row.size(); ++c)
      widths[c] = std::max(widths[c], width_of(row[c]));
  auto append_row = [&](auto cell_of) {
    std::string line;
    for (std::size_t c = 0; c < n; ++c) {
      const std::string& cell = cell_of(c);
      const std::string pad(widths[c] - width_of(cell), ' ');
      const bool last = c + 1 == n;
      line += table.columns[c].right ? pad + cell : cell + (last ? "" : pad);
      if (!last) line += std::string(kGap, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  append_row([&](std::size_t c) -> const std::string& { return table.columns[c].title; });
  static const std::string kEmpty;
  for (const auto& row : table.rows)
    append_row(
        [&](std::size_t c) -> const std::string& { return c < row.size() ? row[c] : kEmpty; });
}

void append_fields(std::string& out, const Fields& fields) {
  std::size_t key_width = 0;
  for (const auto& [key, value] : fields.rows) key_width = std::max(key_width, width_of(key) + 1);
  for (const auto& [key, value] : fields.rows) {
    const std::string label = key + ":";
    out += label + std::string(key_width - width_of(label) + 1, ' ') + value + "\n";
  }
}

}  // namespace

Line& Doc::line(std::string text, Tone tone) {
  Line line;
  if (!text.empty()) line.spans.push_back({std::move(text), tone});
  blocks.emplace_back(std::move(line));
  return std::get<Line>(blocks.back());
}

Table& Doc::table(std::vector<TableColumn> columns) {
  blocks.emplace_back(Table{std::move(columns), {}});
  return std::get<Table>(blocks.back());
}

Fields& Doc::fields() {
  blocks.emplace_back(Fields{});
  return std::get<Fields>(blocks.back());
}

Line& add(Line& line, std::string text, Tone tone) {
  line.spans.push_back({std::move(text), tone});
  return line;
}

std::string plain(const Doc& doc) {
  std::string out;
  for (const auto& block : doc.blocks) {
    if (const Line* line = std::get_if<Line>(&block)) {
      for (const Span& span : line->spans) out += span.text;
      out += "\n";
    } else if (const Fields* fields = std::get_if<Fields>(&block)) {
      append_fields(out, *fields);
    } else if (const Table& table = std::get<Table>(block); !table.rows.empty()) {
      append_table(out, table);  // a table with no rows is left out, title and all
    }
  }
  return out;
}

std::string plain_warnings(const Doc& doc) {
  std::string out;
  for (const auto& warning : doc.warnings) out += "warning: " + warning + "\n";
  return out;
}

}  // namespace heapleak::text
