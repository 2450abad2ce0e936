// libFuzzer target: FrameReader on arbitrary bytes with small limits (so the
// too-large, skip and resynchronise paths are reachable). The same bytes fed
// whole and fed in pieces (sizes from byte 0) must give the same valid-JSON
// messages (how garbage is cut up may differ with the split; what a peer
// really sent may not), and the buffer must stay bounded by the limits.
#include <boost/json/parse.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "protocol/frame_reader.h"

namespace hp = heapleak::protocol;

namespace {

hp::FrameReaderOptions small_limits() {
  hp::FrameReaderOptions options;
  options.max_message_bytes = 512;
  options.max_header_bytes = 256;
  options.max_skip_bytes = 4096;
  return options;
}

struct Outcome {
  std::vector<std::pair<int, std::string>> frames;
  std::size_t errors = 0;
};

void drain(hp::FrameReader& reader, Outcome& outcome, std::size_t fed) {
  while (auto event = reader.next()) {
    if (auto* frame = std::get_if<hp::Frame>(&*event)) {
      FUZZ_CHECK(!(frame->payload.size() > small_limits().max_message_bytes),
                 "frame->payload.size() > small_limits().max_message_bytes");
      boost::system::error_code ec;
      boost::json::parse(frame->payload, ec);
      if (!ec)
        outcome.frames.emplace_back(static_cast<int>(frame->framing), std::move(frame->payload));
    } else {
      FUZZ_CHECK(!(std::get<hp::FrameError>(*event).message.empty()),
                 "std::get<hp::FrameError>(*event).message.empty()");
      ++outcome.errors;
    }
  }
  // Whatever it keeps is a header, a body or a line it may still accept, plus
  // the last feed; never more.
  const auto limits = small_limits();
  FUZZ_CHECK(
      !(reader.buffered_bytes() > limits.max_message_bytes + limits.max_header_bytes + fed + 1),
      "reader.buffered_bytes() > limits.max_message_bytes + limits.max_header_bytes + fed + 1");
}

Outcome run(std::string_view input, std::size_t piece) {
  hp::FrameReader reader(small_limits());
  Outcome outcome;
  for (std::size_t i = 0; i < input.size(); i += piece) {
    const auto bytes = input.substr(i, piece);
    reader.feed(bytes);
    drain(reader, outcome, bytes.size());
  }
  reader.finish();
  drain(reader, outcome, 0);
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t piece = 1 + data[0] % 17;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = run(input, input.size() ? input.size() : 1);
  const Outcome pieces = run(input, piece);
  // Well-framed input must read the same however it is split. After garbage
  // or a bad header, resynchronising depends on what is buffered at the time,
  // so only the safety checks in drain() apply there.
  if (whole.errors == 0 && pieces.errors == 0) {
    FUZZ_CHECK(!(whole.frames != pieces.frames),
               "splitting the input differently changed the valid messages read");
  }
  return 0;
}
