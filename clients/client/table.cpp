#include "clients/client/table.h"

#include <algorithm>
#include <numeric>

#include "results/text/terminal_safe.h"

namespace heapleak::client {

namespace {
constexpr std::size_t kGap = 2;
constexpr std::size_t kMinFlexible = 8;
}  // namespace

void Table::print(std::ostream& out, const Terminal& term) const {
  // Cells often hold dump strings (names, files, values): one escaping rule
  // for every screen (text::shown; cells the renderers escaped stay as they are).
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : raw_rows_) {
    rows.emplace_back();
    for (const auto& cell : row) rows.back().push_back(text::shown(cell));
  }
  const std::size_t n = columns_.size();
  std::vector<std::size_t> widths(n);
  for (std::size_t c = 0; c < n; ++c) widths[c] = display_width(columns_[c].title);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < n && c < row.size(); ++c)
      widths[c] = std::max(widths[c], display_width(row[c]));
  }
  // Shrink the widest flexible column first until the row fits (or nothing can shrink).
  const auto total = [&] {
    return std::accumulate(widths.begin(), widths.end(), std::size_t{0}) + kGap * (n - 1);
  };
  const std::size_t limit = static_cast<std::size_t>(std::max(term.width, 20));
  while (total() > limit) {
    std::size_t widest = n;
    for (std::size_t c = 0; c < n; ++c) {
      if (columns_[c].flexible && widths[c] > kMinFlexible &&
          (widest == n || widths[c] > widths[widest]))
        widest = c;
    }
    if (widest == n) break;
    widths[widest] -= std::min(widths[widest] - kMinFlexible, total() - limit);
  }
  auto print_row = [&](const std::vector<std::string>& row, bool header) {
    std::string line;
    for (std::size_t c = 0; c < n; ++c) {
      const std::string cell = truncate(c < row.size() ? row[c] : "", widths[c]);
      const std::string pad(widths[c] - display_width(cell), ' ');
      const std::string painted = term.paint(cell, header ? "1" : columns_[c].sgr);
      const bool last = c + 1 == n;
      line += columns_[c].right ? pad + painted : painted + (last ? "" : pad);
      if (!last) line += std::string(kGap, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  std::vector<std::string> titles;
  for (const auto& column : columns_) titles.push_back(column.title);
  print_row(titles, true);
  for (const auto& row : rows) print_row(row, false);
}

void print_fields(std::ostream& out, const Terminal& term,
                  const std::vector<std::pair<std::string, std::string>>& fields) {
  std::size_t key_width = 0;
  for (const auto& [key, value] : fields)
    key_width = std::max(key_width, display_width(text::shown(key)) + 1);
  const std::size_t room =
      static_cast<std::size_t>(std::max<int>(term.width - static_cast<int>(key_width) - 1, 16));
  for (const auto& [key, value] : fields) {
    const std::string label = text::shown(key) + ":";
    out << term.paint(label, "1") << std::string(key_width - display_width(label) + 1, ' ')
        << truncate(text::shown(value), room) << "\n";
  }
}

}  // namespace heapleak::client
