// Logger: line format, level names, level filtering.
#include "protocol/logger.h"

#include <catch2/catch.hpp>
#include <regex>

#include "capture_logger.h"

using namespace heapleak::protocol;

TEST_CASE("log lines look like I[12:00:01.234] message", "[logger]") {
  const auto line =
      format_log_line(LogLevel::kInfo, "<-- loadHeap(3)", std::chrono::system_clock::now());
  CHECK(std::regex_match(line, std::regex(R"(I\[\d\d:\d\d:\d\d\.\d\d\d\] <-- loadHeap\(3\))")));
  CHECK(format_log_line(LogLevel::kError, "x", {}).front() == 'E');
  CHECK(format_log_line(LogLevel::kVerbose, "x", {}).front() == 'V');
}

TEST_CASE("--log level names", "[logger]") {
  CHECK(parse_log_level("error") == LogLevel::kError);
  CHECK(parse_log_level("info") == LogLevel::kInfo);
  CHECK(parse_log_level("verbose") == LogLevel::kVerbose);
  CHECK_FALSE(parse_log_level("debug"));
}

TEST_CASE("levels above the maximum are dropped", "[logger]") {
  struct Counting : Logger {
    using Logger::Logger;
    int count = 0;
    void write(LogLevel, std::string_view) override { ++count; }
  };
  Counting logger(LogLevel::kInfo);
  logger.error("e");
  logger.info("i");
  logger.verbose("v");
  CHECK(logger.count == 2);
  CHECK_FALSE(logger.enabled(LogLevel::kVerbose));
}
