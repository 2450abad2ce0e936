// One client connection: a protocol Session fed by a blocking read loop on
// the connection's own thread, and a writer thread draining a queue of whole
// frames. A client that stops reading its replies cannot stall the daemon:
// past kMaxPendingBytes of unread replies the connection is dropped.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "daemon/byte_stream.h"
#include "daemon/served_session.h"
#include "protocol/binder.h"
#include "protocol/session.h"

namespace heapleak::daemon {

class Connection {
 public:
  static constexpr std::size_t kMaxPendingBytes = std::size_t{256} << 20;

  // `finish_work_at_eof`: when the input ends, answer the requests still
  // running before closing (a pipe: `printf ... | heapleakd --stdio`); on a
  // socket the peer is gone at EOF and its requests are cancelled instead.
  Connection(std::shared_ptr<const protocol::Binder> binder, protocol::SessionOptions options,
             std::unique_ptr<ByteStream> stream, bool finish_work_at_eof = false);
  // Serves whatever session `sessions` builds (MCP's, say) on the same loop.
  Connection(const SessionFactory& sessions, std::unique_ptr<ByteStream> stream,
             bool finish_work_at_eof = false);
  ~Connection();  // closes, joins the writer
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Reads and serves until the peer closes, `exit` arrives or close() is
  // called. Returns the exit code `exit` asked for (0 after shutdown, else 1).
  int run();
  // From any thread but the session's own callbacks: cancels in-flight work
  // and ends run().
  void close();

 private:
  void enqueue(std::string frame);
  void write_loop();

  std::unique_ptr<ByteStream> stream_;
  const bool finish_work_at_eof_;
  std::atomic<bool> stop_reading_{false};  // `exit` arrived, or close()
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> pending_;
  std::size_t pending_bytes_ = 0;
  bool closed_ = false;       // close() ran
  bool broken_ = false;       // the peer stopped reading or went away: drop output
  bool writer_stop_ = false;  // destructor: the writer drains and ends
  bool writer_done_ = false;
  std::unique_ptr<ServedSession> session_;
  std::thread writer_;
};

}  // namespace heapleak::daemon
