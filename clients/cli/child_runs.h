// The lifetime of the runs `heapleak fleet` starts: a child that dies with
// its parent (even one killed with SIGKILL, which no handler sees), and the
// parent's wait, which a stop signal (Ctrl-C, SIGTERM, SIGHUP) ends so that
// it can stop its runs and remove their scratch files before it exits.
#pragma once

#include <sys/types.h>

#include <csignal>
#include <string>
#include <vector>

namespace heapleak::cli {

// The environment variable a run finds its parent's pid in.
inline constexpr const char* kParentPidVariable = "HEAPLEAK_PARENT_PID";

// In a run started by spawn_child: asks the kernel to send SIGTERM when the
// parent dies, and exits at once if it died already. Does nothing otherwise.
void die_with_parent_if_asked();

// While alive, the calling thread takes SIGINT, SIGTERM, SIGHUP and SIGCHLD
// only through wait(): the first three are the stop signals. Made before the
// first child starts; the children start with none of it blocked.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Waits until a child may have ended (SIGCHLD), a stop signal came, or
  // `milliseconds` passed. Returns the stop signal received, or 0.
  int wait(int milliseconds);

 private:
  sigset_t taken_{};
  sigset_t previous_{};
};

// Starts argv[0] with stdin from /dev/null and stdout, stderr to the two
// files, the signal mask and dispositions of a fresh process, and
// kParentPidVariable set to this process. Returns the pid, or 0 with `failure` said.
pid_t spawn_child(const std::vector<std::string>& argv, const std::string& out,
                  const std::string& err, std::string& failure);

}  // namespace heapleak::cli
