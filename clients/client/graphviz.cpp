#include "clients/client/graphviz.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string_view>

#include "clients/client/exit_codes.h"
#include "clients/client/output.h"

namespace heapleak::client {

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
  if (!output.empty()) {
    out_fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) {
      ::close(input[0]);
      ::close(input[1]);
      return "cannot write " + output + ": " + std::strerror(errno);
    }
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
  if (out_fd != 1) ::close(out_fd);
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
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  return "dot -T" + format + " failed (exit status " +
         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) + ")";
}

GraphOutput graph_output(const Args& args, bool json) {
  GraphOutput out;
  out.format = args.value("--format").value_or("dot");
  out.file = args.value("-o").value_or("");
  if (out.format != "dot" && out.format != "svg" && out.format != "png") {
    throw ClientError{kExitUsage, "--format expects dot, svg or png, got '" + out.format + "'"};
  }
  if (out.format != "dot" && !json) {
    out.dot_binary = find_dot();
    if (!out.dot_binary) throw ClientError{kExitNoGraphviz, graphviz_install_hint()};
    if (out.format == "png" && out.file.empty() && ::isatty(1)) {
      throw ClientError{kExitUsage,
                        "--format png writes binary data; give -o FILE or redirect stdout"};
    }
  }
  return out;
}

void write_graph(const GraphOutput& out, const std::string& dot_text) {
  if (out.format == "dot") {
    if (out.file.empty()) {
      std::cout << dot_text;
      std::cout.flush();
    } else {
      write_file(out.file, dot_text);
    }
  } else if (std::string error = render_graph(*out.dot_binary, dot_text, out.format, out.file);
             !error.empty()) {
    throw ClientError{kExitDaemonError, error};
  }
}

}  // namespace heapleak::client
