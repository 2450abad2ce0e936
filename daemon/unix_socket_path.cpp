#include "daemon/unix_socket_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <filesystem>
#include <system_error>

namespace heapleak::daemon {
namespace asio = boost::asio;
using local = asio::local::stream_protocol;

bool prepare_unix_socket_path(const std::string& socket_path, protocol::Logger& logger,
                              std::string& error) {
  namespace fs = std::filesystem;
  const fs::path path(socket_path);
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) {
      error = "cannot create " + dir.string() + ": " + ec.message();
      return false;
    }
    ::chmod(dir.c_str(), 0700);
  }
  // Someone who owns or may write to the directory could swap the socket
  // for their own: refuse such a directory (a sticky /tmp is fine).
  struct stat dir_info {};
  if (::lstat(dir.c_str(), &dir_info) != 0 || !S_ISDIR(dir_info.st_mode)) {
    error =
        dir.string() + " is not a directory (or is a symlink); refusing to put the socket there";
    return false;
  }
  if (dir_info.st_uid != ::getuid() && dir_info.st_uid != 0) {
    error = dir.string() + " belongs to another user; refusing to put the socket there";
    return false;
  }
  if ((dir_info.st_mode & 022) != 0 && (dir_info.st_mode & S_ISVTX) == 0) {
    error = dir.string() + " is writable by other users; refusing to put the socket there";
    return false;
  }
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return true;  // nothing there
  if (!S_ISSOCK(info.st_mode)) {
    error = socket_path + " exists and is not a socket; refusing to replace it";
    return false;
  }
  if (info.st_uid != ::getuid()) {
    error = socket_path + " belongs to another user; refusing to use it";
    return false;
  }
  asio::io_context io;
  local::socket probe(io);
  boost::system::error_code connect_error;
  probe.connect(local::endpoint(socket_path), connect_error);
  if (!connect_error) {
    error = "a heapleakd is already listening on " + socket_path;
    return false;
  }
  ::unlink(path.c_str());  // stale: its daemon is gone
  logger.info("removed stale socket " + socket_path);
  return true;
}

}  // namespace heapleak::daemon
