// libFuzzer target: a protocol Session fed arbitrary bytes (optionally after a
// real initialize, so the fuzzer reaches dispatch quickly), with a Binder that
// has a sync method, an async one answered later (some after close), one that
// throws and a notification. Every frame the session writes must be a valid
// Content-Length or NDJSON frame of JSON; nothing may be written after close().
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "protocol/binder.h"
#include "protocol/frame_reader.h"
#include "protocol/session.h"

namespace hp = heapleak::protocol;
namespace json = boost::json;

namespace {

struct EchoParams {
  std::string text;
  std::vector<std::int64_t> numbers;
  std::optional<bool> flag;
};
EchoParams tag_invoke(json::value_to_tag<EchoParams>, const json::value& value) {
  hp::FieldReader r(value);
  return {r.required<std::string>("text"),
          r.optional<std::vector<std::int64_t>>("numbers").value_or(std::vector<std::int64_t>{}),
          r.optional<bool>("flag")};
}

std::vector<hp::Reply>* g_parked = nullptr;

std::shared_ptr<const hp::Binder> make_binder() {
  auto binder = std::make_shared<hp::Binder>();
  binder->add<EchoParams>(
      "echo", [](const EchoParams& p, const hp::RequestContext&) { return json::value(p.text); });
  binder->add_raw("park",
                  [](const json::value&, const hp::RequestContext& context, hp::Reply reply) {
                    context.progress.report(50, "parked");
                    g_parked->push_back(std::move(reply));
                  });
  binder->add<hp::NoParams>("throws",
                            [](const hp::NoParams&, const hp::RequestContext&) -> json::value {
                              throw std::runtime_error("boom");
                            });
  binder->add_raw_notification("heapleak/poke", [](const json::value&) {});
  return binder;
}

void check_frame(const std::string& frame, bool closed) {
  FUZZ_CHECK(!(closed), "written after close()");
  hp::FrameReader reader;
  reader.feed(frame);
  reader.finish();
  int frames = 0;
  while (auto event = reader.next()) {
    auto* parsed = std::get_if<hp::Frame>(&*event);
    FUZZ_CHECK(!(!parsed), "the server wrote a broken frame");
    boost::system::error_code ec;
    json::value message = json::parse(parsed->payload, ec);
    FUZZ_CHECK(!(ec), "the server wrote a frame that is not valid JSON (RFC 8259)");
    FUZZ_CHECK(!(!message.is_object() && !message.is_array()),
               "!message.is_object() && !message.is_array()");
    ++frames;
  }
  FUZZ_CHECK(!(frames != 1), "frames != 1");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static auto binder = make_binder();
  const std::uint8_t flags = data[0];
  std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (flags & 1) {
    const std::string init = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})";
    input = (flags & 2)
                ? init + "\n" + input
                : "Content-Length: " + std::to_string(init.size()) + "\r\n\r\n" + init + input;
  }
  const std::size_t piece = 1 + (flags >> 2) * 3;

  std::vector<hp::Reply> parked;
  g_parked = &parked;
  bool closed = false;
  hp::SessionOptions options;
  options.server_version = "fuzz";
  options.framing.max_message_bytes = 4096;
  {
    hp::Session session(binder, options, [&](std::string frame) { check_frame(frame, closed); });
    for (std::size_t i = 0; i < input.size(); i += piece)
      session.feed(std::string_view(input).substr(i, piece));
    session.finish_input();
    // Answer half of the parked requests while open (twice: the second is ignored).
    for (std::size_t i = 0; i < parked.size(); i += 2) {
      parked[i].result(json::value(static_cast<std::int64_t>(i)));
      parked[i].error(hp::RpcError{-32603, "second answer", std::nullopt});
    }
    session.close();
    closed = true;
    for (std::size_t i = 1; i < parked.size(); i += 2) parked[i].result(nullptr);
  }
  parked.clear();  // dropping answered replies must not write anything
  g_parked = nullptr;
  return 0;
}
