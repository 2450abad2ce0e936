// A one-line progress bar on stderr, fed by the daemon's $/progress
// notifications (begin/report/end). Draws only when stderr is a TTY; the
// line is erased at the end so stdout stays clean.
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace heapleak::client {

class ProgressBar {
 public:
  ProgressBar(bool enabled, int width) : enabled_(enabled), width_(width) {}
  ~ProgressBar() { clear(); }

  // Handles one $/progress params object {token, value:{kind, ...}}.
  void update(const boost::json::value& params);
  void clear();

 private:
  void draw();

  bool enabled_;
  int width_;
  bool drawn_ = false;
  std::string title_;
  std::string message_;
  unsigned percentage_ = 0;
};

}  // namespace heapleak::client
