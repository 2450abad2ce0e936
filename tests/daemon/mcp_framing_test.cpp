// MCP's stdio framing (daemon/mcp/mcp_framing.h): one message per line, split
// anywhere by the transport; CRLF and blank lines; the last line at EOF; a
// line over the cap refused once and skipped, the next line read.
#include "daemon/mcp/mcp_framing.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using heapleak::daemon::McpLineReader;
using heapleak::daemon::McpLineTooLong;

namespace {

// Every event, lines as themselves and a too-long line as "<too long>".
std::vector<std::string> drain(McpLineReader& reader) {
  std::vector<std::string> out;
  while (auto event = reader.next()) {
    if (auto* line = std::get_if<std::string>(&*event)) {
      out.push_back(*line);
    } else {
      out.push_back("<too long " + std::to_string(std::get<McpLineTooLong>(*event).max_bytes) +
                    ">");
    }
  }
  return out;
}

}  // namespace

TEST_CASE("mcp framing: lines split anywhere, CRLF, blank lines", "[daemon][mcp]") {
  McpLineReader reader(1024);
  const std::string input = "{\"a\":1}\n\r\n  \n{\"b\":2}\r\n{\"c\"";
  std::vector<std::string> seen;
  for (char c : input) {  // one byte at a time: the worst split
    reader.feed(std::string_view(&c, 1));
    for (auto& line : drain(reader)) seen.push_back(line);
  }
  CHECK(seen == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"});
  reader.feed(":3}");
  CHECK(drain(reader).empty());  // no newline yet
  reader.finish();
  CHECK(drain(reader) == std::vector<std::string>{"{\"c\":3}"});
  CHECK(drain(reader).empty());
}

TEST_CASE("mcp framing: a line over the cap is refused once and skipped", "[daemon][mcp]") {
  McpLineReader reader(8);
  reader.feed("{\"ok\":1}\n");
  CHECK(drain(reader) == std::vector<std::string>{"{\"ok\":1}"});
  // Streamed in pieces: reported as soon as it passes the cap, then forgotten.
  reader.feed("[0123456789");
  CHECK(drain(reader) == std::vector<std::string>{"<too long 8>"});
  reader.feed("0123456789");
  CHECK(drain(reader).empty());
  reader.feed("]\n{\"n\":2}\n");
  CHECK(drain(reader) == std::vector<std::string>{"{\"n\":2}"});
  // Whole in one read, with its newline.
  reader.feed("[0123456789]\n{}\n");
  CHECK(drain(reader) == std::vector<std::string>{"<too long 8>", "{}"});
}

TEST_CASE("mcp framing: end of input without a last line", "[daemon][mcp]") {
  McpLineReader reader(64);
  reader.feed("{}\n \r");
  reader.finish();
  CHECK(drain(reader) == std::vector<std::string>{"{}"});
}
