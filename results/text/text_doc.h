// A rendered result before it meets a screen: lines of styled spans and
// tables of cells. The renderers (render.h) build one from the wire JSON;
// plain() lays it out at natural width with no colour (heapleak, MCP, pipes),
// and heapleak-client fits its tables to the terminal and paints the tones.
#pragma once

#include <string>
#include <utility>
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

// "key: value" lines, the keys aligned: one object's fields. plain() writes
// them whole; heapleak-client paints the keys and cuts values to its width.
struct Fields {
  std::vector<std::pair<std::string, std::string>> rows;
};

struct Doc {
  std::vector<std::variant<Line, Table, Fields>> blocks;
  // The result's warnings: a CLI prints them on stderr, MCP after the text.
  std::vector<std::string> warnings;

  // Appends a line of one span, or of several (add() to the returned line).
  Line& line(std::string text = {}, Tone tone = Tone::kPlain);
  Table& table(std::vector<TableColumn> columns);
  Fields& fields();
};

// Appends a span to a line; returns the line for chaining.
Line& add(Line& line, std::string text, Tone tone = Tone::kPlain);

// Columns two spaces apart at their natural width, trailing blanks dropped;
// a table with no rows prints nothing.
std::string plain(const Doc& doc);
// "warning: ..." lines, as MCP appends them to its text.
std::string plain_warnings(const Doc& doc);

}  // namespace heapleak::text
