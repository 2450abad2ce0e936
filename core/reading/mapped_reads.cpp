#include "core/reading/mapped_reads.h"

#include <signal.h>

#include <atomic>
#include <mutex>

namespace heapleak {
namespace {

// Read by the handler: a thread-local in a static library linked into the
// executable needs no allocation to reach (initial-exec TLS).
thread_local MappedReadGuard* armed = nullptr;
struct sigaction previous_action {};

void on_sigbus(int signal, siginfo_t* info, void* context) {
  for (MappedReadGuard* guard = armed; guard != nullptr; guard = guard->outer) {
    if (info->si_addr >= guard->begin && info->si_addr < guard->end) {
      armed = guard->outer;
      siglongjmp(guard->resume, 1);
    }
  }
  // Not a guarded read: what SIGBUS did before (a sanitizer's report, or
  // the default action, taken once the faulting read runs again).
  if ((previous_action.sa_flags & SA_SIGINFO) != 0 && previous_action.sa_sigaction != nullptr) {
    previous_action.sa_sigaction(signal, info, context);
  } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signal);
  } else {
    ::sigaction(SIGBUS, &previous_action, nullptr);
  }
}

void install_handler_once() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    // SA_NODEFER: SIGBUS is not left blocked after siglongjmp leaves the handler.
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previous_action);
  });
}

}  // namespace

MappedReadGuard::MappedReadGuard(const void* range_begin, const void* range_end)
    : begin(range_begin), end(range_end), outer(armed) {
  install_handler_once();
  armed = this;
  std::atomic_signal_fence(std::memory_order_seq_cst);  // armed before the reads begin
}

MappedReadGuard::~MappedReadGuard() {
  // After a siglongjmp the handler has already unlinked this guard.
  if (armed == this) armed = outer;
}

}  // namespace heapleak
