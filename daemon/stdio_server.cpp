#include "daemon/stdio_server.h"

#include <poll.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "daemon/connection.h"
#include "daemon/stdio_stream.h"

namespace heapleak::daemon {
namespace {

sigset_t stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

// True once nobody can read what we write to stdout: the read end of a pipe
// or socket was closed (the editor that spawned us is gone). A regular file
// or a terminal never reports this.
bool stdout_reader_gone() {
  pollfd fd{1, 0, 0};  // POLLERR and POLLHUP are reported even when not asked for
  return ::poll(&fd, 1, 0) == 1 && (fd.revents & (POLLERR | POLLHUP)) != 0;
}

}  // namespace

void block_stop_signals() {
  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

StdioServer::StdioServer(std::shared_ptr<const protocol::Binder> binder,
                         protocol::SessionOptions session_options,
                         std::shared_ptr<protocol::Logger> logger)
    : StdioServer(json_rpc_sessions(std::move(binder), std::move(session_options)),
                  std::move(logger)) {}

StdioServer::StdioServer(SessionFactory sessions, std::shared_ptr<protocol::Logger> logger,
                         bool finish_work_at_eof)
    : sessions_(std::move(sessions)),
      logger_(std::move(logger)),
      finish_work_at_eof_(finish_work_at_eof) {}

int StdioServer::run() {
  // Detached: it may still wait in sigwait when the process exits, so it
  // holds what it touches itself. Closing the connection cancels a running
  // load instead of waiting for it, as socket mode does.
  std::thread([state = state_, logger = logger_] {
    const sigset_t signals = stop_signals();
    int signal = 0;
    if (sigwait(&signals, &signal) == 0) {
      logger->info(std::string("stopping on ") + (signal == SIGTERM ? "SIGTERM" : "SIGINT"));
      state->stop_requested = true;
      std::lock_guard lock(state->mutex);
      if (state->connection) state->connection->close();
    }
  }).detach();
  int code;
  {
    Connection connection(sessions_, std::make_unique<StdioStream>(state_->stop_requested),
                          finish_work_at_eof_);
    {
      std::lock_guard lock(state_->mutex);
      state_->connection = &connection;
    }
    // At the end of stdin the connection still answers what it has read, but
    // only while someone reads stdout: when the client is gone (its editor
    // died), its running work is cancelled instead of left to run out.
    std::jthread watcher([&connection](std::stop_token stop) {
      std::mutex mutex;
      std::condition_variable_any wake;  // woken at once by request_stop
      std::unique_lock lock(mutex);
      while (!wake.wait_for(lock, stop, std::chrono::milliseconds(200), [] { return false; })) {
        if (stop.stop_requested()) return;
        if (stdout_reader_gone()) {
          connection.close();
          return;
        }
      }
    });
    code = connection.run();
    watcher.request_stop();
    watcher.join();
    std::lock_guard lock(state_->mutex);
    state_->connection = nullptr;
  }
  return state_->stop_requested ? 0 : code;
}

}  // namespace heapleak::daemon
