#include "clients/common/graphviz_render.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string_view>

#include "core/base/safe_write.h"

namespace heapleak::graphviz {

std::optional<std::string> find_dot() {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/dot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::string graphviz_install_hint() {
  return "Graphviz `dot` is not installed (not found on PATH). Install it with\n"
         "  apt-get install graphviz      (Debian, Ubuntu)\n"
         "  dnf install graphviz          (Fedora)\n"
         "  brew install graphviz         (macOS)\n"
         "or print the graph as dot (the default, or --format dot) and render it elsewhere.";
}

std::string render_graph(const std::string& dot_binary, const std::string& dot_text,
                         const std::string& format, const std::string& output) {
  int input[2];
  if (::pipe2(input, O_CLOEXEC) != 0) return std::strerror(errno);
  int out_fd = 1;
  // The file goes through the one safe path (core/base/safe_write.h): dot writes
  // into an exclusive temporary, renamed over `output` once dot succeeded.
  std::unique_ptr<SafeWrite> file;
  if (!output.empty()) {
    auto opened = SafeWrite::open(output, SpecialTarget::kWriteThrough);
    if (!opened) {
      ::close(input[0]);
      ::close(input[1]);
      return opened.error().message;
    }
    file = std::move(*opened);
    out_fd = file->fd();
  }
  const std::string type = "-T" + format;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(input[0], 0);
    ::dup2(out_fd, 1);
    ::execl(dot_binary.c_str(), dot_binary.c_str(), type.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ::close(input[0]);
  if (pid < 0) {
    ::close(input[1]);
    return std::string("cannot run dot: ") + std::strerror(errno);
  }
  std::string_view rest = dot_text;
  while (!rest.empty()) {
    const ssize_t n = ::write(input[1], rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // dot died; its status says why
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  ::close(input[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    if (file)
      if (auto error = file->commit()) return error->message;
    return {};
  }
  return "dot -T" + format + " failed (exit status " +
         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) + ")";
}

}  // namespace heapleak::graphviz
