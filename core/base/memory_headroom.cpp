#include "core/base/memory_headroom.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

namespace heapleak {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A cgroup file's number; nullopt-like UINT64_MAX for "max", empty or junk.
std::uint64_t cgroup_number(const std::string& text) {
  std::istringstream in(text);
  std::uint64_t value = 0;
  if (!(in >> value)) return UINT64_MAX;
  return value;
}

// The directory of this process's memory cgroup, v1 ("N:memory:/path") or
// v2 ("0::/path"), with the names of its limit and usage files.
struct CgroupFiles {
  std::string limit, usage, stat;
};
CgroupFiles own_cgroup_files() {
  std::ifstream in("/proc/self/cgroup");
  CgroupFiles v2;
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');) {
      if (name == "memory") {
        const std::string dir = "/sys/fs/cgroup/memory" + path;
        return {dir + "/memory.limit_in_bytes", dir + "/memory.usage_in_bytes",
                dir + "/memory.stat"};
      }
    }
    if (controllers.empty()) {
      const std::string dir = "/sys/fs/cgroup" + path;
      v2 = {dir + "/memory.max", dir + "/memory.current", dir + "/memory.stat"};
    }
  }
  return v2;
}

// The file pages of a cgroup's memory.stat (v1 and v2 name them alike).
std::uint64_t file_pages_bytes(const std::string& stat) {
  std::istringstream lines(stat);
  std::uint64_t bytes = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string name;
    std::uint64_t value = 0;
    if (fields >> name >> value && (name == "active_file" || name == "inactive_file"))
      bytes += value;
  }
  return bytes;
}

}  // namespace

std::uint64_t memory_headroom_bytes(const std::string& meminfo, const std::string& limit,
                                    const std::string& usage, const std::string& stat) {
  std::uint64_t headroom = UINT64_MAX;
  std::istringstream lines(meminfo);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string name;
    std::uint64_t kib = 0;
    if (fields >> name >> kib && name == "MemAvailable:") headroom = kib * 1024;
  }
  const std::uint64_t cap = cgroup_number(limit);
  if (cap != UINT64_MAX) {
    std::uint64_t used = cgroup_number(usage);
    if (used != UINT64_MAX) used -= std::min(used, file_pages_bytes(stat));
    const std::uint64_t left = used == UINT64_MAX || used >= cap ? 0 : cap - used;
    headroom = std::min(headroom, left);
  }
  return headroom;
}

std::uint64_t memory_headroom_bytes() {
  const CgroupFiles files = own_cgroup_files();
  return memory_headroom_bytes(read_text("/proc/meminfo"),
                               files.limit.empty() ? "" : read_text(files.limit),
                               files.usage.empty() ? "" : read_text(files.usage),
                               files.stat.empty() ? "" : read_text(files.stat));
}

std::size_t loads_that_fit(std::vector<std::uint64_t> peak_estimates, std::uint64_t headroom,
                           std::size_t at_most) {
  std::sort(peak_estimates.begin(), peak_estimates.end(), std::greater<>());
  const std::uint64_t room = headroom / 2;
  std::uint64_t together = 0;
  std::size_t n = 0;
  for (std::uint64_t estimate : peak_estimates) {
    if (n == at_most || estimate > room - std::min(room, together)) break;
    together += estimate;
    ++n;
  }
  return std::max<std::size_t>(n, 1);
}

}  // namespace heapleak
