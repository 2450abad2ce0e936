// Turns one serialized JSON message into bytes for the wire in a given
// framing. Pure functions, no I/O: the owner of the transport writes the
// returned string as one unit.
#pragma once

#include <string>
#include <string_view>

#include "protocol/framing.h"

namespace heapleak::protocol {

// kContentLength: "Content-Length: N\r\n\r\n" + payload (N counts bytes).
// kNdjson: payload + "\n"; the payload must hold no raw newline, which
// Boost.JSON's serializer guarantees (newlines in strings are escaped).
std::string write_frame(std::string_view payload, Framing framing);

}  // namespace heapleak::protocol
