// `heapleak capture`: asks a Ruby process running the heapleak-capture gem
// (clients/ruby) for a dump or a series over its control socket, shows the
// progress, and ends a series with `heapleak explain` on what it wrote. The
// socket's protocol is in clients/ruby/README.md.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "results/text/human_bytes.h"
#include "results/text/terminal_safe.h"

namespace heapleak::cli {
using text::human_bytes;
namespace {

constexpr const char* kHelp = R"(usage: heapleak capture PID|SOCKET --out DIR [options]

Asks a Ruby process that runs the heapleak-capture gem (enabled with
HEAPLEAK_CAPTURE_DIR) for heap dumps over its control socket, and shows the
progress. With --series it takes A, B, C (or every name of --names) and ends
with `heapleak explain` on all of them. The process decides how to dump (fork or inline) and says why; it
refuses, with the numbers, when neither is safe. See docs/capture.md.

  PID             found as DIR/heapleak-PID.sock (DIR: --dir, else $HEAPLEAK_CAPTURE_DIR)
  --out DIR       where the process writes NAME.json.gz and NAME.manifest.json
  --dir DIR       the folder of the processes' control sockets
  --series        A, B and C (or --names), then explain them all
  --names A,B,C   the dumps' names (default A for one dump, A,B,C for a series;
                  four names or more: explain shows each row's growth per interval)
  --interval T    wait T between dumps (30s, 2m, 500ms; plain numbers are seconds)
  --every N       and N requests or jobs (counted by the gem's middleware)
  --trace         allocation tracing on from just after the first dump to the last
  --mode M        fork or inline (default: the process's governor decides)
  --timeout T     give up waiting for the next dump after T (default 1h)
  --idle-timeout T  give up when the process says nothing (no progress, no
                  heartbeat) for T (default 10m); a process that does not
                  accept is given up after 5 s
  --no-explain    a series without the explain at the end
  --json          print the process's answer as JSON

exit: 0 done, 1 refused, busy or failed (the process says why), 2 usage,
13 no socket to talk to; after a series, explain's own exit code
(docs/exit-codes.md).
)";

double parse_duration(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw UsageError{flag + " expects a duration such as 30s, 2m or 500ms, not '" + text + "'"};
  }
  const std::string unit = text.substr(used);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "ms") scale = 0.001;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (scale == 0 || !(value >= 0) || !std::isfinite(value))
    throw UsageError{flag + " expects a duration such as 30s, 2m or 500ms, not '" + text + "'"};
  return value * scale;
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  for (std::string name; std::getline(in, name, ',');)
    if (!name.empty()) names.push_back(name);
  return names;
}

std::string socket_path(const std::string& target, const std::optional<std::string>& dir_flag) {
  if (target.find('/') != std::string::npos) return target;
  if (target.empty() || target.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError{"'" + target + "' is neither a pid nor a socket path"};
  std::string dir;
  if (dir_flag) {
    dir = *dir_flag;
  } else if (const char* env = std::getenv("HEAPLEAK_CAPTURE_DIR"); env && *env) {
    dir = env;
  } else {
    throw UsageError{"give the socket folder (--dir or HEAPLEAK_CAPTURE_DIR) to find pid " +
                     target};
  }
  return dir + "/heapleak-" + target + ".sock";
}

std::string absolute(const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  char cwd[4096];
  if (!::getcwd(cwd, sizeof cwd))
    throw UsageError{"cannot resolve " + path + ": no working folder"};
  return std::string(cwd) + "/" + path;
}

// Bounds on the process's side of the conversation: its socket may be a
// stopped process, a wrong socket (heapleakd's), or a hostile one.
struct Deadlines {
  int connect_ms = 5000;  // a listener that does not accept: a stopped process
  // Silence between two lines. The gem says "waiting" every second while it
  // waits and heartbeats while it dumps; a dump alone of a huge heap is the
  // longest silence, hence generous by default (--idle-timeout).
  double idle_seconds = 600;
};
// One answer line is a few hundred bytes; a series' result lists its dumps.
constexpr std::size_t kMaxAnswerLine = 1 << 20;

// Waits for `events` on `fd` for at most `ms`; false on timeout.
bool wait_for(int fd, short events, int ms) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int n = ::poll(&p, 1, ms);
    if (n < 0 && errno == EINTR) continue;
    return n > 0;
  }
}

// One connection: the request line out, each answer line to `on_line`.
// False with `error` set when the socket cannot be reached, falls silent
// past the deadline, or says something that is not an answer.
bool converse(const std::string& path, const std::string& request, const Deadlines& deadlines,
              const std::function<void(const boost::json::object&)>& on_line, std::string& error,
              bool& reached) {
  reached = false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    error = "socket path too long: " + path;
    return false;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = std::string("cannot make a socket: ") + std::strerror(errno);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // A unix socket's connect does not wait in the background: EAGAIN means a
  // full backlog (a process that does not accept: stopped, or wedged), and
  // the connect is tried again until the deadline.
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(deadlines.connect_ms);
  while (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    const int err = errno;
    if (err == EINTR) continue;
    if (err != EAGAIN) {
      error = "no capture socket at " + path + " (" + std::strerror(err) +
              "): is capture enabled in that process (HEAPLEAK_CAPTURE_DIR)?";
      return false;
    }
    if (std::chrono::steady_clock::now() >= give_up) {
      error = "the process at " + path + " does not accept connections (waited " +
              std::to_string(deadlines.connect_ms / 1000) + " s): is it stopped?";
      return false;
    }
    ::usleep(50'000);
  }
  reached = true;
  const std::string line = request + "\n";
  for (std::size_t done = 0; done < line.size();) {
    if (!wait_for(fd, POLLOUT, deadlines.connect_ms)) {
      error = "the process does not read its socket: the request could not be sent";
      return false;
    }
    const ssize_t n = ::send(fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      error = std::string("cannot send the request: ") + std::strerror(errno);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  std::string pending;
  char buffer[65536];
  const int idle_ms = static_cast<int>(std::min(deadlines.idle_seconds * 1000, 2.0e9));
  for (;;) {
    if (!wait_for(fd, POLLIN, idle_ms)) {
      error = "the process said nothing for " +
              std::to_string(static_cast<long>(deadlines.idle_seconds)) +
              " s (no progress, no heartbeat): giving up (--idle-timeout)";
      return false;
    }
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      error = std::string("cannot read the answer: ") + std::strerror(errno);
      return false;
    }
    pending.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      boost::system::error_code ec;
      const auto value =
          boost::json::parse(std::string_view(pending).substr(start, nl - start), ec);
      if (ec || !value.is_object()) {
        error = "the process's answer is not a capture answer (not a JSON object): is " + path +
                " a heapleak-capture socket?";
        return false;
      }
      on_line(value.as_object());
    }
    pending.erase(0, start);
    if (pending.size() > kMaxAnswerLine) {
      error = "the process's answer has a line over 1 MiB: not a capture answer";
      return false;
    }
  }
  return true;
}

// The process's strings: raw for paths we use, escaped for a terminal
// (ESC, OSC, C1, bidi: results/text/terminal_safe.h) before they are shown.
std::string raw_text_of(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}
std::string text_of(const boost::json::object& object, const char* key) {
  return text::shown(raw_text_of(object, key));
}

double number_of(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  return value && value->is_number() ? value->to_number<double>() : 0.0;
}

void show_progress(const boost::json::object& event) {
  const std::string kind = text_of(event, "event");
  if (kind == "dumping") {
    std::cerr << "heapleak capture: " << text_of(event, "name") << ": " << text_of(event, "reason")
              << "\n";
  } else if (kind == "waiting") {
    std::cerr << "heapleak capture: waiting for " << text_of(event, "for") << ": "
              << number_of(event, "seconds") << " s, " << number_of(event, "counted")
              << " counted\n";
  } else if (kind == "dumped") {
    char pause[32];
    std::snprintf(pause, sizeof pause, "%.3f", number_of(event, "vm_pause_seconds"));
    std::cerr << "heapleak capture: " << text_of(event, "name") << ": " << text_of(event, "path")
              << ", " << human_bytes(static_cast<std::uint64_t>(number_of(event, "bytes"))) << " ("
              << human_bytes(static_cast<std::uint64_t>(number_of(event, "bytes_uncompressed")))
              << " uncompressed), paused " << pause << " s, " << text_of(event, "mode") << "\n";
  }
}

}  // namespace

int run_capture(const std::vector<std::string>& argv) {
  const Args args =
      parse_args(argv, {{"--series", "--trace", "--no-explain", "--json", "--help", "-h"},
                        {"--out", "--dir", "--names", "--interval", "--every", "--mode",
                         "--timeout", "--idle-timeout"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() != 1) throw UsageError{"expects one PID or socket path"};
  if (!args.value("--out"))
    throw UsageError{"needs --out DIR (where the process writes the dumps)"};
  const bool series = args.has("--series");
  const std::string path = socket_path(args.positional[0], args.value("--dir"));

  boost::json::object request;
  request["method"] = series ? "series" : "dump";
  request["out"] = absolute(*args.value("--out"));
  std::vector<std::string> names =
      split_names(args.value("--names").value_or(series ? "A,B,C" : "A"));
  if (series) {
    if (names.size() < 2) throw UsageError{"--names: a series needs two names or more"};
    boost::json::array list;
    for (const auto& name : names) list.emplace_back(name);
    request["names"] = std::move(list);
    if (auto interval = args.value("--interval"))
      request["interval"] = parse_duration("--interval", *interval);
    if (auto every = args.value("--every")) request["every"] = parse_count("--every", *every);
    if (auto timeout = args.value("--timeout"))
      request["timeout"] = parse_duration("--timeout", *timeout);
    request["trace"] = args.has("--trace");
  } else {
    if (names.size() != 1) throw UsageError{"--names: one name for one dump (or --series)"};
    request["name"] = names.front();
  }
  if (auto mode = args.value("--mode")) {
    if (*mode != "fork" && *mode != "inline") throw UsageError{"--mode is fork or inline"};
    request["mode"] = *mode;
  }

  Deadlines deadlines;
  if (auto idle = args.value("--idle-timeout")) {
    deadlines.idle_seconds = parse_duration("--idle-timeout", *idle);
    if (deadlines.idle_seconds <= 0) throw UsageError{"--idle-timeout must be above 0"};
  }
  boost::json::object answer;
  std::string error;
  bool reached = false;
  const bool talked = converse(
      path, boost::json::serialize(request), deadlines,
      [&](const boost::json::object& line) {
        if (line.contains("ok")) {
          answer = line;
        } else {
          show_progress(line);
        }
      },
      error, reached);
  if (!talked) {
    std::cerr << "heapleak capture: " << text::shown(error) << "\n";
    return reached ? kExitNoAnswer : kExitUnreachable;
  }
  const auto* ok = answer.if_contains("ok");
  if (!ok || !ok->is_bool() || !ok->as_bool()) {
    const std::string why = answer.empty() ? "the process closed the socket without an answer"
                                           : text_of(answer, "error");
    std::cerr << "heapleak capture: " << why << "\n";
    return kExitNoAnswer;
  }
  // A nonsense answer ({"ok":true} and no dumps) is an error, never exit 0.
  const boost::json::value* result = answer.if_contains("result");
  const boost::json::array* listed = nullptr;
  if (result && series && result->is_object())
    if (const auto* dumps = result->as_object().if_contains("dumps"); dumps && dumps->is_array())
      listed = &dumps->as_array();
  std::vector<std::string> paths;
  const auto collect = [&](const boost::json::value& dump) {
    if (dump.is_object() && !raw_text_of(dump.as_object(), "path").empty())
      paths.push_back(raw_text_of(dump.as_object(), "path"));
  };
  if (series && listed) {
    for (const auto& dump : *listed) collect(dump);
  } else if (!series && result) {
    collect(*result);
  }
  if (paths.empty() || (listed && paths.size() != listed->size())) {
    std::cerr << "heapleak capture: the process answered ok without the dumps it wrote: not a "
                 "capture answer\n";
    return kExitNoAnswer;
  }
  if (args.has("--json")) std::cout << boost::json::serialize(*result) << "\n";
  if (!args.has("--json"))
    for (const auto& p : paths) std::cout << text::shown(p) << "\n";
  bool comparable = true;
  if (series) {
    const auto* warnings = result->as_object().if_contains("warnings");
    if (warnings && warnings->is_array())
      for (const auto& warning : warnings->as_array()) {
        std::cerr << "heapleak capture: warning: "
                  << text::shown(warning.is_string() ? std::string(warning.as_string()) : "?")
                  << "\n";
        comparable = false;
      }
  }
  if (!series || args.has("--no-explain") || args.has("--json")) return kExitOk;
  if (!comparable) {
    std::cerr << "heapleak capture: the dumps cannot be compared by address: no explain\n";
    return kExitNoAnswer;
  }
  // Every dump it wrote: with four or more, explain reads the series, each
  // row's growth over every interval (core/series/series_growth.h).
  std::cout << "\n";
  return run_explain(paths);
}

}  // namespace heapleak::cli
