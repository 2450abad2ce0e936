#include "daemon/token_file.h"

#include <sys/stat.h>

#include <cstdio>

namespace heapleak::daemon {

std::string token_file_warning(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || (info.st_mode & 077) == 0) return {};
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
  return "warning: the token file " + path + " has mode " + mode +
         ": other users may read the token; chmod 600 it";
}

}  // namespace heapleak::daemon
