#include "daemon/daemon_options.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <limits>

#include "results/product/version.h"

namespace heapleak::daemon {
namespace {

constexpr const char* kUsage =
    R"(usage: heapleakd (--stdio | --mcp | --listen unix[:PATH] | --listen tcp:127.0.0.1:PORT --token-file FILE) [options]

The heapleak daemon: keeps parsed Ruby heap dumps in memory and answers
JSON-RPC 2.0 (LSP base protocol, or one JSON message per line) about them.
`heapleakd --version` prints its version.

  --stdio               serve one client on stdin/stdout (what editors spawn)
  --mcp                 serve one MCP client (an AI agent) on stdin/stdout:
                        the Model Context Protocol's tools, one JSON message
                        per line (docs/mcp.md)
  --listen unix[:PATH]  serve many clients on a unix socket (default path:
                        $XDG_RUNTIME_DIR/heapleak/heapleakd.sock), mode 0600
  --listen tcp:127.0.0.1:PORT
                        serve on a loopback TCP port; needs --token-file
  --token-file FILE     the token TCP clients must send in initialize's
                        initializationOptions.token
  --max-memory SIZE     refuse loads that would take more (e.g. 8G, 512M)
  --idle-timeout SECS   socket mode: exit after SECS with no client
  --cache-dir DIR       where images of parsed dumps are kept and reopened from
                        (default $HEAPLEAK_CACHE_DIR, else $XDG_CACHE_HOME/heapleak,
                        else ~/.cache/heapleak)
  --cache-max-bytes SIZE  cap of the cache directory (default 10G), least
                        recently used images deleted first
  --no-cache            parse every dump, keep no images
  --log=error|info|verbose   stderr only (verbose shows every frame)
  --sync                run every request on the reading thread (tests)
)";

std::optional<std::uint64_t> parse_size(std::string text) {
  std::uint64_t unit = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
      case 'k':
        unit = 1ull << 10;
        break;
      case 'M':
      case 'm':
        unit = 1ull << 20;
        break;
      case 'G':
      case 'g':
        unit = 1ull << 30;
        break;
      default:
        break;
    }
    if (unit != 1) text.pop_back();
  }
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  // 17179869184G would wrap to 0 (no budget) or a small number: refuse it.
  if (value > std::numeric_limits<std::uint64_t>::max() / unit) return std::nullopt;
  return value * unit;
}

}  // namespace

std::optional<DaemonOptions> parse_daemon_options(int argc, char** argv, std::string& message,
                                                  int& exit_code) {
  DaemonOptions options;
  bool mode_given = false;
  auto fail = [&](const std::string& why) {
    message = "heapleakd: " + why + "\n\n" + kUsage;
    exit_code = 2;
    return std::nullopt;
  };
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    std::string value;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    auto take = [&]() -> bool {
      if (!value.empty()) return true;
      if (k + 1 >= argc) return false;
      value = argv[++k];
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      message = kUsage;
      exit_code = 0;
      return std::nullopt;
    } else if (arg == "--version") {
      message = std::string("heapleakd ") + kVersion + "\n";
      exit_code = 0;
      return std::nullopt;
    } else if (arg == "--stdio") {
      options.mode = DaemonOptions::Mode::kStdio;
      mode_given = true;
    } else if (arg == "--mcp") {
      options.mode = DaemonOptions::Mode::kMcp;
      mode_given = true;
    } else if (arg == "--listen") {
      if (!take()) return fail("--listen needs unix[:PATH] or tcp:127.0.0.1:PORT");
      mode_given = true;
      if (value == "unix" || value.rfind("unix:", 0) == 0) {
        options.mode = DaemonOptions::Mode::kUnix;
        options.socket_path = value.size() > 5 ? value.substr(5) : default_socket_path();
      } else if (value.rfind("tcp:", 0) == 0) {
        options.mode = DaemonOptions::Mode::kTcp;
        const std::string rest = value.substr(4);
        const auto colon = rest.rfind(':');
        if (colon == std::string::npos) return fail("--listen tcp: needs HOST:PORT");
        options.tcp_host = rest.substr(0, colon);
        // IPv6 is written in brackets in a HOST:PORT: tcp:[::1]:PORT.
        if (options.tcp_host.size() > 2 && options.tcp_host.front() == '[' &&
            options.tcp_host.back() == ']') {
          options.tcp_host = options.tcp_host.substr(1, options.tcp_host.size() - 2);
        }
        auto port = parse_size(rest.substr(colon + 1));
        if (!port || *port == 0 || *port > 65535) return fail("bad TCP port in " + value);
        options.tcp_port = static_cast<std::uint16_t>(*port);
        if (options.tcp_host != "127.0.0.1" && options.tcp_host != "localhost" &&
            options.tcp_host != "::1") {
          return fail("TCP listens on loopback only (127.0.0.1 or ::1), not " + options.tcp_host);
        }
      } else {
        return fail("--listen expects unix[:PATH] or tcp:127.0.0.1:PORT, got " + value);
      }
    } else if (arg == "--token-file") {
      if (!take()) return fail("--token-file needs a file");
      options.token_file = value;
    } else if (arg == "--log") {
      if (!take()) return fail("--log needs error, info or verbose");
      if (value != "error" && value != "info" && value != "verbose")
        return fail("--log expects error, info or verbose");
      options.log_level = value;
    } else if (arg == "--sync") {
      options.sync = true;
    } else if (arg == "--max-memory") {
      auto size = take() ? parse_size(value) : std::nullopt;
      if (!size) return fail("--max-memory expects a size like 8G or 512M, below 16 EiB");
      options.max_memory = *size;
    } else if (arg == "--no-cache") {
      options.cache = false;
    } else if (arg == "--cache-dir") {
      if (!take() || value.empty()) return fail("--cache-dir needs a directory");
      options.cache_dir = value;
    } else if (arg == "--cache-max-bytes") {
      auto size = take() ? parse_size(value) : std::nullopt;
      if (!size) return fail("--cache-max-bytes expects a size like 10G or 512M");
      options.cache_max_bytes = *size;
    } else if (arg == "--idle-timeout") {
      auto seconds = take() ? parse_size(value) : std::nullopt;
      if (!seconds) return fail("--idle-timeout expects seconds");
      options.idle_timeout_seconds = static_cast<unsigned>(*seconds);
    } else {
      return fail("unknown option " + arg);
    }
  }
  if (!mode_given) return fail("say how to serve: --stdio, --mcp or --listen");
  if (options.mode == DaemonOptions::Mode::kTcp && options.token_file.empty()) {
    return fail("--listen tcp: requires --token-file (any local user can reach a TCP port)");
  }
  return options;
}

}  // namespace heapleak::daemon
