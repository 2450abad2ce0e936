#include "daemon/socket_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <list>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "daemon/connection.h"
#include "daemon/fd_stream.h"
#include "daemon/token_file.h"
#include "daemon/unix_socket_path.h"

namespace heapleak::daemon {
namespace asio = boost::asio;
using local = asio::local::stream_protocol;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kMaxConnections = 64;
// A TCP client that has not sent the token may send no more than this per
// message (an initialize with its token is well under 1 KiB).
constexpr std::size_t kMaxUnauthenticatedMessage = std::size_t{64} << 10;
// TCP clients that have not sent the token have their own, smaller cap and a
// deadline, so idle strangers can neither fill the 64 slots nor hold them.
constexpr std::size_t kMaxUnauthenticated = 8;
constexpr std::chrono::seconds kAuthDeadline{10};

std::string read_token(const std::string& path, std::string& error) {
  std::ifstream in(path);
  std::string token;
  if (!in || !std::getline(in, token)) {
    error = "cannot read the token file " + path;
    return {};
  }
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  if (token.size() < 16) error = "the token in " + path + " is shorter than 16 characters";
  return token;
}

}  // namespace

struct SocketServer::Impl {
  DaemonOptions options;
  std::shared_ptr<const protocol::Binder> binder;
  protocol::SessionOptions session_options;
  std::shared_ptr<protocol::Logger> logger;
  std::string token;

  asio::io_context io;
  std::unique_ptr<local::acceptor> unix_acceptor;
  std::pair<dev_t, ino_t> socket_inode{0, 0};  // of the socket file this daemon made
  std::unique_ptr<tcp::acceptor> tcp_acceptor;
  asio::signal_set signals{io, SIGINT, SIGTERM};
  asio::steady_timer idle_timer{io};
  asio::steady_timer auth_timer{io};
  bool socket_created = false;

  struct Client {
    std::shared_ptr<Connection> connection;
    std::thread thread;
    bool done = false;
    // TCP only: set once initialize presented the token, or once the daemon
    // shut the connection for not presenting it; until then it is a stranger.
    std::shared_ptr<std::atomic<bool>> settled;
    int fd = -1;  // open while `connection` is set (closed after it is moved out)
    std::chrono::steady_clock::time_point accepted;
  };
  std::mutex mutex;
  std::list<Client> clients;
  bool stopping = false;
  std::chrono::steady_clock::time_point last_activity = std::chrono::steady_clock::now();

  bool listen(std::string& error) {
    boost::system::error_code ec;
    if (options.mode == DaemonOptions::Mode::kUnix) {
      if (!prepare_unix_socket_path(options.socket_path, *logger, error)) return false;
      // Bind and listen under a temporary name, then rename: a client never
      // finds the socket file before it accepts connections. (Socket paths
      // are limited to ~107 bytes: a temporary name that would not fit is
      // skipped and the socket bound in place.)
      const std::string dir = std::filesystem::path(options.socket_path).parent_path().string();
      std::string temporary =
          (dir.empty() ? std::string(".") : dir) + "/.hl" + std::to_string(::getpid());
      if (temporary.size() >= sizeof(sockaddr_un::sun_path)) temporary = options.socket_path;
      if (options.socket_path.size() >= sizeof(sockaddr_un::sun_path)) {
        error = "socket path too long (" + std::to_string(options.socket_path.size()) +
                " bytes; the limit is " + std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                "): " + options.socket_path;
        return false;
      }
      ::unlink(temporary.c_str());
      const mode_t old_mask = ::umask(0177);  // the socket is born 0600
      unix_acceptor = std::make_unique<local::acceptor>(io);
      unix_acceptor->open(local(), ec);
      if (!ec) unix_acceptor->bind(local::endpoint(temporary), ec);
      ::umask(old_mask);
      if (!ec) ::chmod(temporary.c_str(), 0600);
      if (!ec) unix_acceptor->listen(asio::socket_base::max_listen_connections, ec);
      if (!ec && temporary != options.socket_path &&
          ::rename(temporary.c_str(), options.socket_path.c_str()) != 0) {
        ec = boost::system::error_code(errno, boost::system::system_category());
      }
      if (ec) {
        if (temporary != options.socket_path) ::unlink(temporary.c_str());
        error = "cannot listen on " + options.socket_path + ": " + ec.message();
        return false;
      }
      socket_created = true;
      struct stat info {};
      if (::stat(options.socket_path.c_str(), &info) == 0)
        socket_inode = {info.st_dev, info.st_ino};
      logger->info("listening on unix:" + options.socket_path);
      return true;
    }
    token = read_token(options.token_file, error);
    if (!error.empty()) return false;
    if (auto warning = token_file_warning(options.token_file); !warning.empty())
      logger->error(warning);
    const auto address = asio::ip::make_address(
        options.tcp_host == "localhost" ? "127.0.0.1" : options.tcp_host, ec);
    if (ec || !address.is_loopback()) {
      error = "TCP listens on loopback only";
      return false;
    }
    tcp_acceptor = std::make_unique<tcp::acceptor>(io);
    const tcp::endpoint endpoint(address, options.tcp_port);
    tcp_acceptor->open(endpoint.protocol(), ec);
    if (!ec) tcp_acceptor->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) tcp_acceptor->bind(endpoint, ec);
    if (!ec) tcp_acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      error = "cannot listen on tcp:" + options.tcp_host + ":" + std::to_string(options.tcp_port) +
              ": " + ec.message();
      return false;
    }
    logger->info("listening on tcp:" + options.tcp_host + ":" + std::to_string(options.tcp_port));
    return true;
  }

  void reap_finished() {
    std::lock_guard lock(mutex);
    for (auto it = clients.begin(); it != clients.end();) {
      if (it->done) {
        it->thread.join();
        it = clients.erase(it);
      } else {
        ++it;
      }
    }
  }

  // Takes ownership of an accepted socket's descriptor and serves it on a thread.
  void serve(int fd, bool needs_token) {
    reap_finished();
    std::lock_guard lock(mutex);
    last_activity = std::chrono::steady_clock::now();
    if (stopping || clients.size() >= kMaxConnections) {
      logger->error(stopping ? "refusing a client: stopping"
                             : "refusing a client: too many connections");
      ::close(fd);
      return;
    }
    auto authenticated = needs_token ? std::make_shared<std::atomic<bool>>(false) : nullptr;
    // Full of strangers: the oldest one makes room. Refusing the newcomer
    // instead would refuse the token holder too (nobody has the token at accept).
    if (needs_token && unauthenticated_locked() >= kMaxUnauthenticated)
      evict_oldest_stranger_locked();
    protocol::SessionOptions session = session_options;
    if (needs_token) {
      // Before the token is checked, no more than an initialize needs.
      session.max_message_bytes_before_initialize = kMaxUnauthenticatedMessage;
      session.on_initialize = [this, fd, authenticated](const boost::json::value& params) {
        const auto* object = params.if_object();
        const auto* init = object ? object->if_contains("initializationOptions") : nullptr;
        const auto* given =
            init && init->is_object() ? init->as_object().if_contains("token") : nullptr;
        if (!given || !given->is_string() || given->as_string() != token) {
          logger->error("closing a TCP client that did not present the token");
          ::shutdown(fd, SHUT_RDWR);
          // The session answers an error and stays uninitialized, so nothing
          // pipelined behind this initialize runs.
          throw std::runtime_error("this daemon requires initializationOptions.token");
        }
        authenticated->store(true);
      };
    }
    clients.emplace_back();
    Client& client = clients.back();
    client.settled = authenticated;  // null for unix clients
    client.fd = fd;
    client.accepted = std::chrono::steady_clock::now();
    client.connection =
        std::make_shared<Connection>(binder, std::move(session), std::make_unique<FdStream>(fd));
    client.thread = std::thread([this, &client, fd] {
      client.connection->run();
      std::shared_ptr<Connection> finished;
      {
        std::lock_guard lock(mutex);
        finished = std::move(client.connection);
        last_activity = std::chrono::steady_clock::now();
      }
      finished.reset();  // flushes replies, then stops its writer
      ::close(fd);
      std::lock_guard lock(mutex);
      client.done = true;
    });
  }

  void accept_next() {
    if (unix_acceptor) {
      unix_acceptor->async_accept([this](boost::system::error_code ec, local::socket socket) {
        if (ec) return;
        serve(socket.release(), false);
        accept_next();
      });
    } else {
      tcp_acceptor->async_accept([this](boost::system::error_code ec, tcp::socket socket) {
        if (ec) return;
        socket.set_option(tcp::no_delay(true));
        serve(socket.release(), true);
        accept_next();
      });
    }
  }

  std::size_t unauthenticated_locked() const {
    std::size_t count = 0;
    for (const auto& client : clients) {
      if (client.settled && client.connection && !client.settled->load()) ++count;
    }
    return count;
  }

  void evict_oldest_stranger_locked() {
    Client* oldest = nullptr;
    for (auto& client : clients) {
      if (client.settled && client.connection && !client.settled->load() &&
          (!oldest || client.accepted < oldest->accepted))
        oldest = &client;
    }
    if (!oldest) return;
    logger->error("closing the oldest TCP client without the token: too many such clients");
    ::shutdown(oldest->fd, SHUT_RDWR);
    oldest->settled->store(true);
  }

  // Every second: shuts down TCP connections still without the token past
  // the deadline. Under the lock a client's fd is open while it has a connection.
  void watch_authentication() {
    auth_timer.expires_after(std::chrono::seconds(1));
    auth_timer.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      const auto now = std::chrono::steady_clock::now();
      {
        std::lock_guard lock(mutex);
        if (stopping) return;  // see watch_idle
        for (const auto& client : clients) {
          if (client.settled && client.connection && !client.settled->load() &&
              now - client.accepted > kAuthDeadline) {
            logger->error("closing a TCP client that did not present the token in time");
            ::shutdown(client.fd, SHUT_RDWR);
            client.settled->store(true);
          }
        }
      }
      watch_authentication();
    });
  }

  void watch_idle() {
    if (options.idle_timeout_seconds == 0) return;
    idle_timer.expires_after(options.idle_check_interval);
    idle_timer.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      bool idle = false;
      {
        reap_finished();
        std::lock_guard lock(mutex);
        // The timer may have expired just before shut_down cancelled it: its
        // handler then runs with no error, after the stop. Armed again, it
        // would keep io.run() from ever returning and the daemon alive
        // (client_autostart's "still running after 60 s").
        if (stopping) return;
        idle = clients.empty() && std::chrono::steady_clock::now() - last_activity >
                                      std::chrono::seconds(options.idle_timeout_seconds);
      }
      if (idle) {
        logger->info("idle for " + std::to_string(options.idle_timeout_seconds) + " s: stopping");
        shut_down();
        return;
      }
      watch_idle();
    });
  }

  // Removes the socket file if it is still the one this daemon made: once
  // the acceptor is closed a new daemon may already have replaced it (a
  // stale socket is taken over), and that one's must stay.
  void remove_own_socket() {
    if (!socket_created) return;
    socket_created = false;
    struct stat info {};
    if (::stat(options.socket_path.c_str(), &info) == 0 &&
        std::pair(info.st_dev, info.st_ino) == socket_inode) {
      ::unlink(options.socket_path.c_str());
    }
  }

  void shut_down() {
    boost::system::error_code ignored;
    if (unix_acceptor) unix_acceptor->close(ignored);
    // At once, not after the clients and heaps are gone: the next command
    // starts a new daemon instead of finding this one's socket refusing it.
    remove_own_socket();
    if (tcp_acceptor) tcp_acceptor->close(ignored);
    signals.cancel(ignored);
    idle_timer.cancel();
    auth_timer.cancel();
    std::lock_guard lock(mutex);
    stopping = true;
    for (auto& client : clients) {
      if (client.connection) client.connection->close();
    }
  }
};

SocketServer::SocketServer(DaemonOptions options, std::shared_ptr<const protocol::Binder> binder,
                           protocol::SessionOptions session_options,
                           std::shared_ptr<protocol::Logger> logger)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->binder = std::move(binder);
  impl_->session_options = std::move(session_options);
  impl_->logger = std::move(logger);
}

SocketServer::~SocketServer() = default;

int SocketServer::run() {
  Impl& s = *impl_;
  std::string error;
  bool listening = false;
  try {
    listening = s.listen(error);
  } catch (const std::exception& e) {
    error = std::string("cannot listen: ") + e.what();
  }
  if (!listening) {
    s.logger->error(error);
    std::fprintf(stderr, "heapleakd: %s\n", error.c_str());
    return 1;
  }
  s.signals.async_wait([&s](boost::system::error_code ec, int signal) {
    if (ec) return;
    s.logger->info(std::string("stopping on ") + (signal == SIGTERM ? "SIGTERM" : "SIGINT"));
    s.shut_down();
  });
  s.accept_next();
  s.watch_idle();
  if (s.tcp_acceptor) s.watch_authentication();
  s.io.run();
  // Every client's thread ends once its connection is closed.
  for (;;) {
    s.reap_finished();
    {
      std::lock_guard lock(s.mutex);
      if (s.clients.empty()) break;
      for (auto& client : s.clients) {
        if (client.connection) client.connection->close();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  s.remove_own_socket();
  s.logger->info("stopped");
  return 0;
}

void SocketServer::stop() {
  asio::post(impl_->io, [this] { impl_->shut_down(); });
}

}  // namespace heapleak::daemon
