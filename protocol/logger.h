// A tiny leveled logger for the daemon and the protocol layer. Logs go to
// stderr only (stdout carries frames and nothing else). Lines look like
// `I[12:00:01.234] <-- loadHeap(3)`; levels: error (something failed),
// info (one line per request and reply), verbose (raw frames too).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace heapleak::protocol {

enum class LogLevel { kError = 0, kInfo = 1, kVerbose = 2 };

// "error" | "info" | "verbose" -> level; nullopt for anything else (--log=...).
std::optional<LogLevel> parse_log_level(std::string_view text);

// `I[12:00:01.234] message` in local time, no trailing newline.
std::string format_log_line(LogLevel level, std::string_view message,
                            std::chrono::system_clock::time_point when);

class Logger {
 public:
  explicit Logger(LogLevel max_level = LogLevel::kInfo) : max_level_(max_level) {}
  virtual ~Logger() = default;

  bool enabled(LogLevel level) const { return level <= max_level_; }
  void log(LogLevel level, std::string_view message) {
    if (enabled(level)) write(level, message);
  }
  void error(std::string_view message) { log(LogLevel::kError, message); }
  void info(std::string_view message) { log(LogLevel::kInfo, message); }
  void verbose(std::string_view message) { log(LogLevel::kVerbose, message); }

 protected:
  // Called only for enabled levels; must be thread-safe.
  virtual void write(LogLevel level, std::string_view message) = 0;

 private:
  LogLevel max_level_;
};

// Writes one whole line per call to stderr, serialized across threads.
class StderrLogger : public Logger {
 public:
  using Logger::Logger;

 protected:
  void write(LogLevel level, std::string_view message) override;

 private:
  std::mutex mutex_;
};

// A logger that drops everything (tests, fuzzers).
std::shared_ptr<Logger> make_null_logger();

}  // namespace heapleak::protocol
