#include "clients/cli/size_arg.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "clients/cli/cli_args.h"

namespace heapleak::cli {

namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The unit's multiplier, or 0 when it is not one.
double unit_of(const std::string& unit) {
  static const std::pair<const char*, double> units[] = {
      {"", 1},
      {"b", 1},
      {"k", 1024.0},
      {"kib", 1024.0},
      {"m", 1048576.0},
      {"mib", 1048576.0},
      {"g", 1073741824.0},
      {"gib", 1073741824.0},
      {"t", 1099511627776.0},
      {"tib", 1099511627776.0},
      {"kb", 1e3},
      {"mb", 1e6},
      {"gb", 1e9},
      {"tb", 1e12},
  };
  const std::string key = lower(unit);
  for (const auto& [name, factor] : units)
    if (key == name) return factor;
  return 0;
}

}  // namespace

std::uint64_t parse_byte_size(const std::string& flag, const std::string& text) {
  const auto fail = [&] {
    return UsageError{flag + " expects a size such as 500000, 512KiB, 5MiB or 1.5GB, got '" + text +
                      "'"};
  };
  std::size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  if (end == 0) throw fail();
  double number = 0;
  auto [stop, error] = std::from_chars(text.data(), text.data() + end, number);
  if (error != std::errc() || stop != text.data() + end) throw fail();
  std::string unit = text.substr(end);
  if (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  const double factor = unit_of(unit);
  if (factor == 0) throw fail();
  const double bytes = std::round(number * factor);
  // 2^64 and above cannot be a budget: refuse rather than wrap.
  if (!(bytes < 18446744073709551616.0)) throw fail();
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace heapleak::cli
