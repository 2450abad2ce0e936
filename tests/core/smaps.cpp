#include "tests/core/smaps.h"

#include <cstdint>
#include <cstdio>
#include <fstream>

namespace heapleak::test {

std::string smaps_field(const void* address, std::string_view field) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  const std::string prefix = std::string(field) + ":";
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &from, &to) == 2) {
      inside = from <= at && at < to;
    } else if (inside && line.rfind(prefix, 0) == 0) {
      return line.substr(prefix.size());
    }
  }
  return "";
}

}  // namespace heapleak::test
