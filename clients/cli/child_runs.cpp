#include "clients/cli/child_runs.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

extern char** environ;

namespace heapleak::cli {

void die_with_parent_if_asked() {
  const char* value = std::getenv(kParentPidVariable);
  if (value == nullptr || *value == '\0') return;
  const long parent = std::strtol(value, nullptr, 10);
  ::unsetenv(kParentPidVariable);  // its own children (Graphviz) are not runs
  if (parent <= 1) return;         // not a pid fleet wrote
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  // The parent died between starting this process and the line above: no
  // signal will come, and nobody waits for the answer.
  if (::getppid() != static_cast<pid_t>(parent)) std::_Exit(128 + SIGTERM);
}

StopSignals::StopSignals() {
  sigemptyset(&taken_);
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&taken_, signal);
  // Blocked, a signal waits pending for sigtimedwait (SIGCHLD too, though
  // its default is to be discarded: Linux keeps a blocked one pending).
  ::pthread_sigmask(SIG_BLOCK, &taken_, &previous_);
}

StopSignals::~StopSignals() {
  // Pending SIGCHLDs are dropped; a stop signal left pending (none is: the
  // caller stops at the first) would take its default action here.
  const timespec none{0, 0};
  sigset_t child;
  sigemptyset(&child);
  sigaddset(&child, SIGCHLD);
  while (::sigtimedwait(&child, nullptr, &none) > 0) {
  }
  ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int StopSignals::wait(int milliseconds) {
  const timespec timeout{milliseconds / 1000, (milliseconds % 1000) * 1000000L};
  const int signal = ::sigtimedwait(&taken_, nullptr, &timeout);
  return signal > 0 && signal != SIGCHLD ? signal : 0;
}

pid_t spawn_child(const std::vector<std::string>& argv, const std::string& out,
                  const std::string& err, std::string& failure) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  // The parent blocks its stop signals to wait for them (StopSignals): the
  // child must not inherit that, or Ctrl-C would not reach it.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE}) sigaddset(&defaults, signal);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> variables;
  for (char** variable = environ; *variable != nullptr; ++variable)
    if (std::strncmp(*variable, kParentPidVariable, std::strlen(kParentPidVariable)) != 0 ||
        (*variable)[std::strlen(kParentPidVariable)] != '=')
      variables.emplace_back(*variable);
  variables.push_back(std::string(kParentPidVariable) + "=" + std::to_string(::getpid()));
  std::vector<char*> envp;
  for (auto& variable : variables) envp.push_back(variable.data());
  envp.push_back(nullptr);
  std::vector<std::string> words = argv;
  std::vector<char*> args;
  for (auto& word : words) args.push_back(word.data());
  args.push_back(nullptr);

  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, args[0], &actions, &attributes, args.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    failure = std::string("cannot start: ") + std::strerror(error);
    return 0;
  }
  return pid;
}

}  // namespace heapleak::cli
