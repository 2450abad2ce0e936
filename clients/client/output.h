// Small formatting helpers shared by the commands: the daemon's result as one
// JSON line (--json), fields of results read defensively, and human forms of
// counts, locations and object briefs. No I/O besides the stream given (and
// write_file's file).
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "clients/client/terminal.h"
#include "results/text/human_bytes.h"
#include "results/text/text_doc.h"
#include "results/text/wire_fields.h"

namespace heapleak::client {

// --json: the result exactly as the daemon sent it, one line.
void print_json(std::ostream& out, const boost::json::value& result);

// Field readers of results/text (str: a string as it came, for ids and
// parameters; text::field escapes it for a screen).
inline std::string str(const boost::json::value& object, std::string_view key) {
  return text::raw(object, key);
}
using text::flag;
using text::member;
using text::num;

// 12345 -> "12,345" (results/text, shared with the one-shot CLI).
using text::grouped;

// "app.rb:12" from an object brief's file/line, or "" (escaped).
using text::location;

// A rendered result (results/text) on stdout: lines with their tones painted,
// tables fitted to the terminal's width; its warnings on stderr.
void print_doc(const Terminal& term, const text::Doc& doc);

// Writes `text` to `file`; throws ClientError (kExitDaemonError) when it cannot.
void write_file(const std::string& file, const std::string& text);

// A path hop's `via` (pathToRoot's objects, explain's pathVia) in words:
// "@cache", "@a and @c", "one of @a, @b"; "" when absent or null.
std::string via_text(const boost::json::value* via);

}  // namespace heapleak::client
