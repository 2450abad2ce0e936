#include "clients/client/daemon_finder.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "clients/client/exit_codes.h"

namespace heapleak::client {
namespace fs = std::filesystem;

namespace {

constexpr auto kStartTimeout = std::chrono::seconds(15);

bool is_executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

ClientError unreachable(const std::string& why) { return ClientError{kExitUnreachable, why}; }

// The last lines of the auto-started daemon's log, to say why it died.
std::string log_tail(const fs::path& log) {
  std::ifstream in(log);
  std::string line, tail;
  int lines = 0;
  std::vector<std::string> kept;
  while (std::getline(in, line)) {
    kept.push_back(line);
    if (kept.size() > 5) kept.erase(kept.begin());
  }
  for (const auto& k : kept) tail += "\n  " + k, ++lines;
  return lines == 0 ? std::string(" nothing (it is empty)") : tail;
}

// Forks heapleakd --listen in a new session (so Ctrl-C at this terminal never
// reaches it), stdin /dev/null, stdout and stderr into `log`. Returns its pid.
pid_t start_daemon(const std::string& binary, const std::string& socket, unsigned idle_timeout,
                   const fs::path& log) {
  const std::string listen = "unix:" + socket;
  const std::string idle = std::to_string(idle_timeout);
  // A new file, not the old one truncated: a daemon still stopping keeps
  // writing to the old one (at its offset), which must not bury this one's words.
  ::unlink(log.c_str());
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    ::signal(SIGINT, SIG_DFL);
    ::dup2(null_fd, 0);
    ::dup2(log_fd >= 0 ? log_fd : null_fd, 1);
    ::dup2(log_fd >= 0 ? log_fd : null_fd, 2);
    if (::chdir("/") != 0) _exit(126);  // loads get absolute paths; pin no directory
    ::execl(binary.c_str(), binary.c_str(), "--listen", listen.c_str(), "--idle-timeout",
            idle.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (log_fd >= 0) ::close(log_fd);
  if (null_fd >= 0) ::close(null_fd);
  return pid;
}

}  // namespace

std::optional<std::string> find_heapleakd(std::string& searched) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // Installed side by side, or this build tree (clients/client/ next to daemon/).
    for (const fs::path& candidate :
         {self.parent_path() / "heapleakd",
          self.parent_path().parent_path().parent_path() / "daemon" / "heapleakd"}) {
      searched += "  " + candidate.lexically_normal().string() + "\n";
      if (is_executable(candidate)) return candidate.lexically_normal().string();
    }
  }
  if (const char* env = std::getenv("HEAPLEAKD"); env && *env) {
    searched += "  $HEAPLEAKD=" + std::string(env) + "\n";
    if (is_executable(env)) return fs::absolute(env).string();
  }
  searched += "  $PATH\n";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty()) continue;
      const fs::path candidate = fs::path(dir) / "heapleakd";
      if (is_executable(candidate)) return fs::absolute(candidate).string();
    }
  }
  return std::nullopt;
}

std::optional<Transport> reach_daemon(const DaemonOptions& options) {
  std::string searched;
  if (options.spawn) {
    auto binary = find_heapleakd(searched);
    if (!binary) throw unreachable("cannot find heapleakd; looked in:\n" + searched);
    std::string error;
    auto transport = Transport::spawn({*binary, "--stdio", "--log=error"}, error);
    if (!transport) throw unreachable("cannot start " + *binary + ": " + error);
    return transport;
  }
  const std::string socket = options.socket.value_or(default_socket_path());
  int connect_errno = 0;
  if (auto transport = Transport::connect_unix(socket, connect_errno)) return transport;
  if (connect_errno != ENOENT && connect_errno != ECONNREFUSED) {
    throw unreachable("cannot connect to " + socket + ": " + std::strerror(connect_errno));
  }
  if (!options.may_start) return std::nullopt;

  auto binary = find_heapleakd(searched);
  if (!binary) {
    throw unreachable("no heapleakd is listening on " + socket +
                      " and none was found to start; looked in:\n" + searched +
                      "(build it, put it on PATH, or set HEAPLEAKD)");
  }
  // The daemon makes the directory too, but the log lives beside the socket.
  const fs::path dir =
      fs::path(socket).parent_path().empty() ? fs::path(".") : fs::path(socket).parent_path();
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    ::chmod(dir.c_str(), 0700);
  }
  const fs::path log = dir / (fs::path(socket).filename().string() + ".log");
  const pid_t pid = start_daemon(*binary, socket, options.idle_timeout, log);
  if (pid < 0)
    throw unreachable("cannot fork to start heapleakd: " + std::string(std::strerror(errno)));
  if (options.announce) {
    std::cerr << "heapleak-client: started heapleakd (pid " << pid << ") on " << socket
              << ", idle timeout " << options.idle_timeout << " s, log " << log.string() << "\n";
  }
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  bool exited = false;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto transport = Transport::connect_unix(socket, connect_errno)) return transport;
    if (exited) break;  // it died and nobody else is listening either
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;  // maybe another client's daemon won the race: try once more
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  std::string how =
      " in time (still running after " + std::to_string(kStartTimeout.count()) + " s; stopped it)";
  if (!exited) {
    ::kill(pid, SIGTERM);
  } else if (WIFEXITED(status)) {
    how = " (it exited with status " + std::to_string(WEXITSTATUS(status)) + ")";
  } else if (WIFSIGNALED(status)) {
    how = " (it was killed by signal " + std::to_string(WTERMSIG(status)) + ")";
  }
  throw unreachable("heapleakd (pid " + std::to_string(pid) + ") did not start listening on " +
                    socket + how + "; its log " + log.string() + " says:" + log_tail(log));
}

}  // namespace heapleak::client
