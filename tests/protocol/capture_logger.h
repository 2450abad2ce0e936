// A Logger for tests that keeps every line it is given.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "protocol/logger.h"

namespace heapleak::protocol::testing {

class CaptureLogger : public Logger {
 public:
  CaptureLogger() : Logger(LogLevel::kVerbose) {}
  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }
  bool contains(const std::string& needle) const {
    for (const auto& line : lines()) {
      if (line.find(needle) != std::string::npos) return true;
    }
    return false;
  }

 protected:
  void write(LogLevel, std::string_view message) override {
    std::lock_guard lock(mutex_);
    lines_.emplace_back(message);
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace heapleak::protocol::testing
