// FrameReader: both framings, any split, header quirks, size guards, garbage.
#include "protocol/frame_reader.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using heapleak::protocol::Frame;
using heapleak::protocol::FrameError;
using heapleak::protocol::FrameErrorKind;
using heapleak::protocol::FrameEvent;
using heapleak::protocol::FrameReader;
using heapleak::protocol::FrameReaderOptions;
using heapleak::protocol::Framing;

namespace {

std::vector<FrameEvent> drain(FrameReader& reader) {
  std::vector<FrameEvent> events;
  while (auto event = reader.next()) events.push_back(std::move(*event));
  return events;
}

// Feeds `input` in pieces cut at `cuts`, then ends the input.
std::vector<FrameEvent> read_split(const std::string& input, std::vector<std::size_t> cuts,
                                   FrameReaderOptions options = {}) {
  FrameReader reader(options);
  std::vector<FrameEvent> events;
  std::size_t from = 0;
  cuts.push_back(input.size());
  for (std::size_t cut : cuts) {
    reader.feed(std::string_view(input).substr(from, cut - from));
    for (auto& e : drain(reader)) events.push_back(std::move(e));
    from = cut;
  }
  reader.finish();
  for (auto& e : drain(reader)) events.push_back(std::move(e));
  return events;
}

std::vector<FrameEvent> read_all(const std::string& input, FrameReaderOptions options = {}) {
  return read_split(input, {}, options);
}

std::string cl(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

const Frame& frame(const FrameEvent& e) { return std::get<Frame>(e); }
const FrameError& error(const FrameEvent& e) { return std::get<FrameError>(e); }

const std::string kA = R"({"jsonrpc":"2.0","id":1,"method":"a"})";
const std::string kB = R"({"jsonrpc":"2.0","id":2,"method":"b","params":{"s":"x\ny"}})";
const std::string kC = R"([{"jsonrpc":"2.0","method":"c"}])";

}  // namespace

TEST_CASE("Content-Length frames are read whatever the split point", "[frame_reader]") {
  const std::string input = cl(kA) + cl(kB) + kC + "\n" + cl(kA);
  for (std::size_t cut = 0; cut <= input.size(); ++cut) {
    INFO("split at " << cut);
    auto events = read_split(input, {cut});
    REQUIRE(events.size() == 4);
    CHECK(frame(events[0]).payload == kA);
    CHECK(frame(events[1]).payload == kB);
    CHECK(frame(events[2]).payload == kC);
    CHECK(frame(events[2]).framing == Framing::kNdjson);
    CHECK(frame(events[3]).payload == kA);
    CHECK(frame(events[3]).framing == Framing::kContentLength);
  }
}

TEST_CASE("frames survive being fed one byte at a time and every two-cut split", "[frame_reader]") {
  const std::string input = cl(kA) + kA + "\r\n" + cl(kB);
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < input.size(); ++i) every.push_back(i);
  auto events = read_split(input, every);
  REQUIRE(events.size() == 3);
  CHECK(frame(events[0]).payload == kA);
  CHECK(frame(events[1]).payload == kA);
  CHECK(frame(events[2]).payload == kB);

  for (std::size_t a = 0; a < input.size(); a += 7) {
    for (std::size_t b = a; b < input.size(); b += 5) {
      auto split = read_split(input, {a, b});
      REQUIRE(split.size() == 3);
      CHECK(frame(split[2]).payload == kB);
    }
  }
}

TEST_CASE("headers accept CRLF and bare LF, ignore other headers, last length wins",
          "[frame_reader]") {
  SECTION("bare LF") {
    auto events = read_all("Content-Length: " + std::to_string(kA.size()) + "\n\n" + kA);
    REQUIRE(events.size() == 1);
    CHECK(frame(events[0]).payload == kA);
  }
  SECTION("Content-Type and unknown headers, any case") {
    auto events = read_all(
        "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
        "X-Whatever: 1\r\ncontent-length:" +
        std::to_string(kA.size()) + "\r\n\r\n" + kA);
    REQUIRE(events.size() == 1);
    CHECK(frame(events[0]).payload == kA);
  }
  SECTION("duplicate Content-Length: the last one wins") {
    auto events = read_all("Content-Length: 3\r\nContent-Length: " + std::to_string(kA.size()) +
                           "\r\n\r\n" + kA);
    REQUIRE(events.size() == 1);
    CHECK(frame(events[0]).payload == kA);
  }
  SECTION("a length counts bytes, not characters") {
    const std::string body = "{\"s\":\"\xC3\xA9t\xC3\xA9\"}";
    auto events = read_all(cl(body) + cl(kA));
    REQUIRE(events.size() == 2);
    CHECK(frame(events[0]).payload == body);
  }
}

TEST_CASE("an absurd Content-Length is refused, then the next message is read", "[frame_reader]") {
  const std::string input =
      "Content-Length: 1000000000000000000\r\n\r\n{\"partial\":" + cl(kA) + cl(kB);
  for (std::size_t cut = 0; cut <= input.size(); cut += 3) {
    INFO("split at " << cut);
    auto events = read_split(input, {cut});
    REQUIRE(events.size() == 3);
    CHECK(error(events[0]).kind == FrameErrorKind::kTooLarge);
    CHECK_THAT(error(events[0]).message, Catch::Contains("1000000000000000000"));
    CHECK(frame(events[1]).payload == kA);
    CHECK(frame(events[2]).payload == kB);
  }
}

TEST_CASE("a length past uint64 saturates instead of wrapping", "[frame_reader]") {
  auto events = read_all("Content-Length: 99999999999999999999999999\r\n\r\n" + cl(kA));
  REQUIRE(events.size() == 2);
  CHECK(error(events[0]).kind == FrameErrorKind::kTooLarge);
  CHECK(frame(events[1]).payload == kA);
}

TEST_CASE("an honest oversize body is skipped exactly, without buffering it", "[frame_reader]") {
  FrameReaderOptions options;
  options.max_message_bytes = 64;
  // The skipped body even contains a fake header: exact skipping must not see it.
  const std::string big = "{\"text\":\"" + std::string(100, 'x') + "Content-Length: 2\"}";
  FrameReader reader(options);
  reader.feed("Content-Length: " + std::to_string(big.size()) + "\r\n\r\n");
  auto first = drain(reader);
  REQUIRE(first.size() == 1);
  CHECK(error(first[0]).kind == FrameErrorKind::kTooLarge);
  for (char c : big) {
    reader.feed(std::string_view(&c, 1));
    CHECK(drain(reader).empty());
    CHECK(reader.buffered_bytes() == 0);
  }
  reader.feed(cl(kA));
  auto rest = drain(reader);
  REQUIRE(rest.size() == 1);
  CHECK(frame(rest[0]).payload == kA);
}

TEST_CASE("an NDJSON line over the limit is refused and the next line read", "[frame_reader]") {
  FrameReaderOptions options;
  options.max_message_bytes = 32;
  const std::string long_line = "{\"x\":\"" + std::string(200, 'y') + "\"}\n";
  FrameReader reader(options);
  std::vector<FrameEvent> events;
  for (std::size_t i = 0; i < long_line.size(); i += 10) {
    reader.feed(std::string_view(long_line).substr(i, 10));
    for (auto& e : drain(reader)) events.push_back(std::move(e));
    CHECK(reader.buffered_bytes() <= 64);
  }
  reader.feed("{\"ok\":1}\n");
  for (auto& e : drain(reader)) events.push_back(std::move(e));
  REQUIRE(events.size() == 2);
  CHECK(error(events[0]).kind == FrameErrorKind::kTooLarge);
  CHECK(error(events[0]).framing == Framing::kNdjson);
  CHECK(frame(events[1]).payload == "{\"ok\":1}");
}

TEST_CASE("a frame cut short is reported at end of input", "[frame_reader]") {
  auto events = read_all("Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\"");
  REQUIRE(events.size() == 1);
  CHECK(error(events[0]).kind == FrameErrorKind::kTruncated);
  CHECK_THAT(error(events[0]).message, Catch::Contains("expected 100 bytes, got 16"));

  auto header_only = read_all("Content-Length: 10\r\n");
  REQUIRE(header_only.size() == 1);
  CHECK(error(header_only[0]).kind == FrameErrorKind::kTruncated);
}

TEST_CASE("garbage is reported once and skipped, then messages resume", "[frame_reader]") {
  SECTION("garbage lines before a header") {
    auto events = read_all("hello there\r\nmore junk\n" + cl(kA));
    REQUIRE(events.size() == 2);
    CHECK(error(events[0]).kind == FrameErrorKind::kGarbage);
    CHECK(frame(events[1]).payload == kA);
  }
  SECTION("garbage glued to a header") {
    auto events = read_all("xx yy" + cl(kA));
    REQUIRE(events.size() == 2);
    CHECK(error(events[0]).kind == FrameErrorKind::kGarbage);
    CHECK(frame(events[1]).payload == kA);
  }
  SECTION("garbage before an NDJSON line") {
    auto events = read_all("%%%\n" + kA + "\n");
    REQUIRE(events.size() == 2);
    CHECK(error(events[0]).kind == FrameErrorKind::kGarbage);
    CHECK(frame(events[1]).framing == Framing::kNdjson);
  }
  SECTION("a header block without Content-Length") {
    auto events = read_all("Content-Type: x\r\n\r\n" + cl(kA));
    REQUIRE(events.size() == 2);
    CHECK(error(events[0]).kind == FrameErrorKind::kBadHeader);
    CHECK(frame(events[1]).payload == kA);
  }
  SECTION("an unparsable Content-Length") {
    auto events = read_all("Content-Length: 12abc\r\n\r\n" + cl(kA));
    REQUIRE(events.size() == 2);
    CHECK(error(events[0]).kind == FrameErrorKind::kBadHeader);
    CHECK_THAT(error(events[0]).message, Catch::Contains("12abc"));
    CHECK(frame(events[1]).payload == kA);
  }
  SECTION("a header line that never ends") {
    FrameReaderOptions options;
    options.max_header_bytes = 128;
    auto events = read_all("Content-Length" + std::string(1000, ' ') + "\n" + kA + "\n", options);
    REQUIRE(events.size() == 2);
    CHECK(error(events[0]).kind == FrameErrorKind::kBadHeader);
    CHECK(frame(events[1]).payload == kA);
  }
}

TEST_CASE("NDJSON lines: CRLF, blank lines, a last line without newline", "[frame_reader]") {
  auto events = read_all(kA + "\r\n\n\n  " + kB + "\n" + kC);
  REQUIRE(events.size() == 3);
  for (auto& e : events) CHECK(frame(e).framing == Framing::kNdjson);
  CHECK(frame(events[0]).payload == kA);
  CHECK(frame(events[1]).payload == kB);
  CHECK(frame(events[2]).payload == kC);
}

TEST_CASE("mixed framing is detected per message", "[frame_reader]") {
  auto events = read_all(kA + "\n" + cl(kB) + "\r\n" + kC + "\n" + cl(kA));
  REQUIRE(events.size() == 4);
  CHECK(frame(events[0]).framing == Framing::kNdjson);
  CHECK(frame(events[1]).framing == Framing::kContentLength);
  CHECK(frame(events[2]).framing == Framing::kNdjson);
  CHECK(frame(events[3]).framing == Framing::kContentLength);
  CHECK(frame(events[1]).payload == kB);
}

TEST_CASE("an empty body is a frame (the parser rejects it later)", "[frame_reader]") {
  auto events = read_all("Content-Length: 0\r\n\r\n" + cl(kA));
  REQUIRE(events.size() == 2);
  CHECK(frame(events[0]).payload.empty());
  CHECK(frame(events[1]).payload == kA);
}

TEST_CASE("after an absurd Content-Length, the message right after the blank line is read",
          "[frame_reader]") {
  // Issue 13, item 8: the scan looked for a '{' after a newline only, so a
  // JSON line starting right after the header block was lost.
  for (const std::string& next : {kA + "\n", cl(kA)}) {
    const std::string input = "Content-Length: 5000000000\r\n\r\n" + next + cl(kB);
    for (std::size_t cut = 0; cut <= input.size(); cut += 5) {
      INFO("split at " << cut << " of " << input);
      auto events = read_split(input, {cut});
      REQUIRE(events.size() == 3);
      CHECK(error(events[0]).kind == FrameErrorKind::kTooLarge);
      CHECK(frame(events[1]).payload == kA);
      CHECK(frame(events[2]).payload == kB);
    }
  }
}

TEST_CASE("a header block over the limit skips its body and reads the next frame",
          "[frame_reader]") {
  // Issue 13, item 8: the lines after the limit were read as a new block, so
  // the body became garbage and swallowed the next frame's header.
  FrameReaderOptions options;
  options.max_header_bytes = 256;
  std::string headers;
  for (int k = 0; k < 40; ++k) headers += "X-Padding-" + std::to_string(k) + ": 0123456789\r\n";
  const std::string input =
      headers + "Content-Length: " + std::to_string(kB.size()) + "\r\n\r\n" + kB + cl(kC) + kA;
  for (std::size_t cut = 0; cut <= input.size(); cut += 7) {
    INFO("split at " << cut);
    auto events = read_split(input, {cut}, options);
    REQUIRE(events.size() == 3);
    CHECK(error(events[0]).kind == FrameErrorKind::kBadHeader);
    CHECK(frame(events[1]).payload == kC);
    CHECK(frame(events[2]).payload == kA);
  }
}
