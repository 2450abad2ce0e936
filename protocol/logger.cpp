#include "protocol/logger.h"

#include <cstdio>
#include <ctime>

namespace heapleak::protocol {

std::optional<LogLevel> parse_log_level(std::string_view text) {
  if (text == "error") return LogLevel::kError;
  if (text == "info") return LogLevel::kInfo;
  if (text == "verbose") return LogLevel::kVerbose;
  return std::nullopt;
}

std::string format_log_line(LogLevel level, std::string_view message,
                            std::chrono::system_clock::time_point when) {
  using namespace std::chrono;
  const std::time_t seconds = system_clock::to_time_t(when);
  const auto millis = duration_cast<milliseconds>(when.time_since_epoch()).count() % 1000;
  std::tm local{};
  localtime_r(&seconds, &local);
  const char letter = level == LogLevel::kError ? 'E' : level == LogLevel::kInfo ? 'I' : 'V';
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%c[%02d:%02d:%02d.%03d] ", letter, local.tm_hour,
                local.tm_min, local.tm_sec, static_cast<int>(millis));
  std::string line(stamp);
  line.append(message);
  return line;
}

void StderrLogger::write(LogLevel level, std::string_view message) {
  std::string line = format_log_line(level, message, std::chrono::system_clock::now());
  line.push_back('\n');
  // One fwrite per line under a lock so lines from worker threads never interleave.
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

namespace {
class NullLogger : public Logger {
 public:
  NullLogger() : Logger(LogLevel::kError) {}

 protected:
  void write(LogLevel, std::string_view) override {}
};
}  // namespace

std::shared_ptr<Logger> make_null_logger() { return std::make_shared<NullLogger>(); }

}  // namespace heapleak::protocol
