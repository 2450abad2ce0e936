#include "clients/client/interrupt.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

namespace heapleak::client {

namespace {

int g_pipe[2] = {-1, -1};

void on_sigint(int) {
  const int saved = errno;
  const char byte = 1;
  [[maybe_unused]] ssize_t ignored = ::write(g_pipe[1], &byte, 1);
  errno = saved;
}

}  // namespace

void install_interrupt_handler() {
  if (g_pipe[0] >= 0) return;
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  ::sigaction(SIGINT, &action, nullptr);
}

int interrupt_fd() { return g_pipe[0]; }

int take_interrupts() {
  if (g_pipe[0] < 0) return 0;
  int count = 0;
  char buffer[64];
  for (;;) {
    const ssize_t n = ::read(g_pipe[0], buffer, sizeof buffer);
    if (n > 0) {
      count += static_cast<int>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return count;
  }
}

}  // namespace heapleak::client
