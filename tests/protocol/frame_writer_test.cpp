// write_frame: exact bytes for both framings, and what it writes reads back.
#include "protocol/frame_writer.h"

#include <catch2/catch.hpp>

#include "protocol/frame_reader.h"

using namespace heapleak::protocol;

TEST_CASE("write_frame produces exact Content-Length and NDJSON frames", "[frame_writer]") {
  CHECK(write_frame("{}", Framing::kContentLength) == "Content-Length: 2\r\n\r\n{}");
  CHECK(write_frame("{}", Framing::kNdjson) == "{}\n");
  // Bytes, not characters.
  CHECK(write_frame("\"\xC3\xA9\"", Framing::kContentLength) ==
        "Content-Length: 4\r\n\r\n\"\xC3\xA9\"");
}

TEST_CASE("written frames read back with their framing", "[frame_writer]") {
  const std::string payload = R"({"jsonrpc":"2.0","id":"x","result":[1,2,3]})";
  for (Framing framing : {Framing::kContentLength, Framing::kNdjson}) {
    FrameReader reader;
    reader.feed(write_frame(payload, framing));
    auto event = reader.next();
    REQUIRE(event);
    CHECK(std::get<Frame>(*event).payload == payload);
    CHECK(std::get<Frame>(*event).framing == framing);
    CHECK_FALSE(reader.next());
  }
}
