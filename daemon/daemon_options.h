// heapleakd's command line: how it listens, logs, and what it may use.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "protocol/socket_path.h"

namespace heapleak::daemon {

struct DaemonOptions {
  // kMcp: the Model Context Protocol on stdin/stdout (docs/mcp.md).
  enum class Mode { kStdio, kMcp, kUnix, kTcp };
  Mode mode = Mode::kStdio;
  std::string socket_path;  // kUnix
  std::string tcp_host = "127.0.0.1";
  std::uint16_t tcp_port = 0;
  std::string token_file;  // kTcp: every connection must present this token
  std::string log_level = "error";
  bool sync = false;                  // everything on one thread (tests)
  std::uint64_t max_memory = 0;       // bytes; 0: no budget
  unsigned idle_timeout_seconds = 0;  // socket mode: exit when idle this long
  // How often the idle timeout is checked. Not a flag: tests shorten it so
  // that a stop often lands as the check fires (socket_server_test.cpp).
  std::chrono::microseconds idle_check_interval = std::chrono::seconds(1);
  bool cache = true;      // reopen dumps from their cache images (core/heap_cache.h)
  std::string cache_dir;  // empty: default_cache_dir()
  std::uint64_t cache_max_bytes = std::uint64_t{10} << 30;
};

// Parses argv; on error or --help fills `message` and returns nullopt
// (`exit_code` 0 for --help, 2 for a usage error).
std::optional<DaemonOptions> parse_daemon_options(int argc, char** argv, std::string& message,
                                                  int& exit_code);

// One definition, shared with heapleak-client (auto-start must agree).
using protocol::default_socket_path;

}  // namespace heapleak::daemon
