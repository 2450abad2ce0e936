// The byte pipe to one heapleakd: a connected unix socket, or the stdin and
// stdout of a private `heapleakd --stdio` child. Owns the descriptors (and the
// child, which it reaps on close). Knows nothing of JSON-RPC.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace heapleak::client {

class Transport {
 public:
  Transport() = default;
  Transport(Transport&& other) noexcept;
  Transport& operator=(Transport&& other) noexcept;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;
  ~Transport() { close(); }

  // Connects to a unix socket; nullopt with errno_out set when nobody listens.
  static std::optional<Transport> connect_unix(const std::string& path, int& errno_out);

  // Starts argv[0] (an absolute path) with pipes on stdin/stdout, in its own
  // process group so the terminal's Ctrl-C reaches only the client.
  static std::optional<Transport> spawn(const std::vector<std::string>& argv, std::string& error);

  int read_fd() const { return read_fd_; }
  // The process at the other end: the spawned child, or a unix socket's peer
  // (SO_PEERCRED); -1 when unknown.
  pid_t peer_pid() const;
  bool write_all(std::string_view bytes);
  // >0 bytes, 0 end of stream, -1 error (errno set).
  long read_some(char* buffer, std::size_t size);

  // Closes the descriptors; a child gets 2 s to exit on EOF, then SIGTERM, then SIGKILL.
  void close();

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
  pid_t child_ = -1;
};

}  // namespace heapleak::client
