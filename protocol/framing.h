// How one message travelled on the wire. The reader records it per message and
// the session answers in the same framing, so a peer piping NDJSON gets NDJSON
// back while an LSP client gets Content-Length frames.
#pragma once

#include <string_view>

namespace heapleak::protocol {

enum class Framing {
  kContentLength,  // LSP base protocol: "Content-Length: N\r\n\r\n" + N bytes
  kNdjson,         // one JSON value per line
};

constexpr std::string_view framing_name(Framing framing) {
  return framing == Framing::kNdjson ? "ndjson" : "content-length";
}

}  // namespace heapleak::protocol
