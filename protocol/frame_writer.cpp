#include "protocol/frame_writer.h"

namespace heapleak::protocol {

std::string write_frame(std::string_view payload, Framing framing) {
  std::string frame;
  if (framing == Framing::kNdjson) {
    frame.reserve(payload.size() + 1);
    frame.append(payload);
    frame.push_back('\n');
    return frame;
  }
  const std::string length = std::to_string(payload.size());
  frame.reserve(payload.size() + length.size() + 20);
  frame.append("Content-Length: ").append(length).append("\r\n\r\n").append(payload);
  return frame;
}

}  // namespace heapleak::protocol
