// `heapleak capture`: asks a Ruby process running the heapleak-capture gem
// (clients/ruby) for a dump or a series over its control socket, shows the
// progress, and ends a series with `heapleak explain` on what it wrote. The
// socket's protocol is in clients/ruby/README.md.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
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

// One connection: the request line out, each answer line to `on_line`.
// False with `error` set when the socket cannot be reached.
bool converse(const std::string& path, const std::string& request,
              const std::function<void(const boost::json::object&)>& on_line, std::string& error) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    error = "socket path too long: " + path;
    return false;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    error = "no capture socket at " + path + " (" + std::strerror(errno) +
            "): is capture enabled in that process (HEAPLEAK_CAPTURE_DIR)?";
    if (fd >= 0) ::close(fd);
    return false;
  }
  const std::string line = request + "\n";
  for (std::size_t done = 0; done < line.size();) {
    const ssize_t n = ::send(fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n <= 0) {
      error = std::string("cannot send the request: ") + std::strerror(errno);
      ::close(fd);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  std::string pending;
  char buffer[65536];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
      boost::system::error_code ec;
      const auto value = boost::json::parse(pending.substr(0, nl), ec);
      if (!ec && value.is_object()) on_line(value.as_object());
    }
  }
  ::close(fd);
  return true;
}

std::string text_of(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
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
  const Args args = parse_args(
      argv, {{"--series", "--trace", "--no-explain", "--json", "--help", "-h"},
             {"--out", "--dir", "--names", "--interval", "--every", "--mode", "--timeout"}});
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

  boost::json::object answer;
  std::string error;
  const bool reached = converse(
      path, boost::json::serialize(request),
      [&](const boost::json::object& line) {
        if (line.contains("ok")) {
          answer = line;
        } else {
          show_progress(line);
        }
      },
      error);
  if (!reached) {
    std::cerr << "heapleak capture: " << error << "\n";
    return kExitUnreachable;
  }
  const auto* ok = answer.if_contains("ok");
  if (!ok || !ok->is_bool() || !ok->as_bool()) {
    const std::string why = answer.empty() ? "the process closed the socket without an answer"
                                           : text_of(answer, "error");
    std::cerr << "heapleak capture: " << why << "\n";
    return kExitNoAnswer;
  }
  const boost::json::value& result = answer.at("result");
  if (args.has("--json")) std::cout << boost::json::serialize(result) << "\n";

  std::vector<std::string> paths;
  const auto collect = [&](const boost::json::value& dump) {
    if (dump.is_object()) paths.push_back(text_of(dump.as_object(), "path"));
  };
  if (series) {
    for (const auto& dump : result.at("dumps").as_array()) collect(dump);
  } else {
    collect(result);
  }
  if (!args.has("--json"))
    for (const auto& p : paths) std::cout << p << "\n";
  bool comparable = true;
  if (series) {
    for (const auto& warning : result.at("warnings").as_array()) {
      std::cerr << "heapleak capture: warning: " << warning.as_string().c_str() << "\n";
      comparable = false;
    }
  }
  if (!series || args.has("--no-explain") || args.has("--json")) return kExitOk;
  if (!comparable) {
    std::cerr << "heapleak capture: the dumps cannot be compared by address: no explain\n";
    return kExitNoAnswer;
  }
  // Every dump it wrote: with four or more, explain reads the series, each
  // row's growth over every interval (core/series_growth.h).
  std::cout << "\n";
  return run_explain(paths);
}

}  // namespace heapleak::cli
