#include "clients/client/transport.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

namespace heapleak::client {

namespace {

// Waits up to `timeout` for `pid` to exit; true when reaped.
bool reap_within(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno == ECHILD)) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

Transport::Transport(Transport&& other) noexcept { *this = std::move(other); }

Transport& Transport::operator=(Transport&& other) noexcept {
  if (this != &other) {
    close();
    read_fd_ = std::exchange(other.read_fd_, -1);
    write_fd_ = std::exchange(other.write_fd_, -1);
    child_ = std::exchange(other.child_, -1);
  }
  return *this;
}

std::optional<Transport> Transport::connect_unix(const std::string& path, int& errno_out) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    errno_out = ENAMETOOLONG;
    return std::nullopt;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    errno_out = errno;
    return std::nullopt;
  }
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    errno_out = errno;
    ::close(fd);
    return std::nullopt;
  }
  Transport transport;
  transport.read_fd_ = fd;
  transport.write_fd_ = ::dup(fd);
  ::fcntl(transport.write_fd_, F_SETFD, FD_CLOEXEC);
  return transport;
}

pid_t Transport::peer_pid() const {
  if (child_ > 0) return child_;
  ucred credentials{};
  socklen_t size = sizeof credentials;
  if (read_fd_ >= 0 && ::getsockopt(read_fd_, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 &&
      credentials.pid > 0) {
    return credentials.pid;
  }
  return -1;
}

std::optional<Transport> Transport::spawn(const std::vector<std::string>& argv,
                                          std::string& error) {
  int to_child[2];
  int from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    ::close(to_child[0]);
    ::close(to_child[1]);
    return std::nullopt;
  }
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = std::strerror(errno);
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
    return std::nullopt;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::signal(SIGINT, SIG_DFL);
    ::dup2(to_child[0], 0);
    ::dup2(from_child[1], 1);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  Transport transport;
  transport.read_fd_ = from_child[0];
  transport.write_fd_ = to_child[1];
  transport.child_ = pid;
  return transport;
}

bool Transport::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(write_fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

long Transport::read_some(char* buffer, std::size_t size) {
  for (;;) {
    const ssize_t n = ::read(read_fd_, buffer, size);
    if (n < 0 && errno == EINTR) continue;
    return static_cast<long>(n);
  }
}

void Transport::close() {
  if (write_fd_ >= 0) ::close(std::exchange(write_fd_, -1));
  if (read_fd_ >= 0) ::close(std::exchange(read_fd_, -1));
  if (child_ > 0) {
    const pid_t pid = std::exchange(child_, -1);
    if (reap_within(pid, std::chrono::seconds(2))) return;
    ::kill(pid, SIGTERM);
    if (reap_within(pid, std::chrono::seconds(2))) return;
    ::kill(pid, SIGKILL);
    reap_within(pid, std::chrono::seconds(2));
  }
}

}  // namespace heapleak::client
