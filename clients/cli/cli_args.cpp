#include "clients/cli/cli_args.h"

#include <charconv>

namespace heapleak::cli {

std::optional<std::string> Args::value(const std::string& flag) const {
  auto it = values.find(flag);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

Args parse_args(const std::vector<std::string>& argv, const ArgSpec& spec) {
  Args args;
  bool only_positional = false;
  for (std::size_t k = 0; k < argv.size(); ++k) {
    const std::string& arg = argv[k];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      args.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    std::string flag = arg;
    std::optional<std::string> inline_value;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      flag = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    if (spec.switches.contains(flag) && !inline_value) {
      args.switches.insert(flag);
    } else if (spec.with_value.contains(flag)) {
      if (!inline_value) {
        if (k + 1 >= argv.size()) throw UsageError{flag + " needs a value"};
        inline_value = argv[++k];
      }
      args.values[flag] = *inline_value;
    } else {
      throw UsageError{"unknown option " + flag};
    }
  }
  return args;
}

std::size_t parse_count(const std::string& flag, const std::string& text) {
  std::size_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw UsageError{flag + " expects a non-negative integer, got '" + text + "'"};
  }
  return value;
}

std::vector<Address> parse_addresses(const std::vector<std::string>& texts) {
  std::vector<Address> addresses;
  for (const auto& text : texts) {
    auto address = parse_address(text);
    if (!address)
      throw InvalidArgument("'" + text +
                            "' is not an address (expected 0x followed by hex digits)");
    addresses.push_back(*address);
  }
  return addresses;
}

}  // namespace heapleak::cli
