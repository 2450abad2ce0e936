// A rendered result before it meets a screen: lines of styled spans and
// tables of cells. The renderers (render.h) build one from the wire JSON;
// plain() lays it out at natural width with no colour (heapleak, MCP, pipes),
// and heapleak-client fits its tables to the terminal and paints the tones.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace heapleak::text {

// What a span or a column is, for a client that paints: headings bold,
// objects (addresses, holders) cyan, reasons yellow.
enum class Tone { kPlain, kHeading, kObject, kReason };

struct Span {
  std::string text;
  Tone tone = Tone::kPlain;
};

struct Line {
  std::vector<Span> spans;
};

struct TableColumn {
  std::string title;
  bool right = false;     // numbers
  bool flexible = false;  // a client may cut it to fit its width
  Tone tone = Tone::kPlain;
};

struct Table {
  std::vector<TableColumn> columns;
  std::vector<std::vector<std::string>> rows;
};

struct Doc {
  std::vector<std::variant<Line, Table>> blocks;
  // The result's warnings: a CLI prints them on stderr, MCP after the text.
  std::vector<std::string> warnings;

  // Appends a line of one span, or of several (add() to the returned line).
  Line& line(std::string text = {}, Tone tone = Tone::kPlain);
  Table& table(std::vector<TableColumn> columns);
};

// Appends a span to a line; returns the line for chaining.
Line& add(Line& line, std::string text, Tone tone = Tone::kPlain);

// Columns two spaces apart at their natural width, trailing blanks dropped;
// a table with no rows prints nothing.
std::string plain(const Doc& doc);
// "warning: ..." lines, as MCP appends them to its text.
std::string plain_warnings(const Doc& doc);

}  // namespace heapleak::text
