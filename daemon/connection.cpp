#include "daemon/connection.h"

#include <chrono>
#include <vector>

namespace heapleak::daemon {

namespace {

// protocol::Session as a ServedSession.
class JsonRpcSession : public ServedSession {
 public:
  JsonRpcSession(std::shared_ptr<const protocol::Binder> binder, protocol::SessionOptions options,
                 Sink sink)
      : session_(std::move(binder), std::move(options), std::move(sink)) {}
  void feed(std::string_view bytes) override { session_.feed(bytes); }
  void finish_input() override { session_.finish_input(); }
  void close() override { session_.close(); }
  std::size_t in_flight() const override { return session_.in_flight(); }
  std::optional<int> exit_code() const override { return session_.exit_code(); }

 private:
  protocol::Session session_;
};

}  // namespace

SessionFactory json_rpc_sessions(std::shared_ptr<const protocol::Binder> binder,
                                 protocol::SessionOptions options) {
  return [binder = std::move(binder), options = std::move(options)](ServedSession::Sink sink,
                                                                    std::function<void()> on_exit) {
    protocol::SessionOptions mine = options;
    mine.on_exit = [then = options.on_exit, on_exit = std::move(on_exit)](bool clean) {
      if (then) then(clean);
      on_exit();
    };
    return std::make_unique<JsonRpcSession>(binder, std::move(mine), std::move(sink));
  };
}

Connection::Connection(std::shared_ptr<const protocol::Binder> binder,
                       protocol::SessionOptions options, std::unique_ptr<ByteStream> stream,
                       bool finish_work_at_eof)
    : Connection(json_rpc_sessions(std::move(binder), std::move(options)), std::move(stream),
                 finish_work_at_eof) {}

Connection::Connection(const SessionFactory& sessions, std::unique_ptr<ByteStream> stream,
                       bool finish_work_at_eof)
    : stream_(std::move(stream)), finish_work_at_eof_(finish_work_at_eof) {
  // run() returns after this message; it must not re-enter the session.
  session_ = sessions([this](std::string frame) { enqueue(std::move(frame)); },
                      [this] { stop_reading_ = true; });
  writer_ = std::thread([this] { write_loop(); });
}

Connection::~Connection() {
  close();
  session_.reset();
  {
    std::unique_lock lock(mutex_);
    writer_stop_ = true;
    changed_.notify_all();
    // A peer that does not read can hold the writer in send() forever: give
    // it two seconds to drain, then cut the connection.
    if (!changed_.wait_for(lock, std::chrono::seconds(2), [&] { return writer_done_; })) {
      lock.unlock();
      stream_->abort();
    }
  }
  writer_.join();
}

int Connection::run() {
  std::vector<char> buffer(64 * 1024);
  bool at_eof = false;
  while (!stop_reading_) {
    const long n = stream_->read(buffer.data(), buffer.size());
    if (n <= 0) {
      at_eof = !stop_reading_;
      if (at_eof) session_->finish_input();
      break;
    }
    session_->feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  if (at_eof && finish_work_at_eof_) {
    // Every request read so far gets its answer, unless we are told to stop.
    while (session_->in_flight() > 0 && !stop_reading_)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  {
    // Let the replies already queued (shutdown's, say) reach the peer,
    // unless the daemon is stopping (close()): then the destructor decides.
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(5),
                      [&] { return pending_.empty() || broken_ || closed_; });
  }
  const auto code = session_->exit_code();
  return code ? *code : 1;
}

void Connection::close() {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
  }
  stop_reading_ = true;
  session_->close();
  stream_->shutdown();
}

void Connection::enqueue(std::string frame) {
  bool overflow = false;
  {
    std::lock_guard lock(mutex_);
    if (broken_) return;
    pending_bytes_ += frame.size();
    pending_.push_back(std::move(frame));
    if (pending_bytes_ > kMaxPendingBytes) {
      // The peer has not read a quarter gigabyte of replies: stop talking to it.
      overflow = broken_ = true;
      pending_.clear();
      pending_bytes_ = 0;
    }
  }
  changed_.notify_all();
  if (overflow) stream_->abort();
}

void Connection::write_loop() {
  for (;;) {
    std::string frame;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !pending_.empty() || writer_stop_; });
      if (pending_.empty()) {
        writer_done_ = true;
        changed_.notify_all();
        return;
      }
      frame = std::move(pending_.front());
      pending_.pop_front();
      pending_bytes_ -= frame.size();
    }
    const bool written = stream_->write_all(frame.data(), frame.size());
    {
      std::lock_guard lock(mutex_);
      if (!written) {
        broken_ = true;
        pending_.clear();
        pending_bytes_ = 0;
      }
    }
    changed_.notify_all();
  }
}

}  // namespace heapleak::daemon
