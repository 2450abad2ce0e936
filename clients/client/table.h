// A plain-text table sized to the terminal: columns take their natural width,
// and when the row is too wide the flexible columns (class names, paths,
// samples) are cut with "...". Colour is applied after sizing.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "clients/client/terminal.h"

namespace heapleak::client {

struct Column {
  std::string title;
  bool right = false;     // numbers
  bool flexible = false;  // may be cut to fit
  std::string sgr;        // colour of the cells ("36" cyan), empty for none
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add(std::vector<std::string> row) { raw_rows_.push_back(std::move(row)); }
  bool empty() const { return raw_rows_.empty(); }
  void print(std::ostream& out, const Terminal& term) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> raw_rows_;  // as added; escaped when printed
};

// "key: value" lines with the keys aligned, values cut to the width.
void print_fields(std::ostream& out, const Terminal& term,
                  const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace heapleak::client
