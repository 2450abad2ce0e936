// A small command-line parser for the one-shot CLI: positional arguments,
// boolean flags and flags with a value (`--by site`, `--by=site`, `-o FILE`).
// Unknown flags are usage errors, reported with the flag's name.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/base/address.h"
#include "results/product/exit_codes.h"

namespace heapleak::cli {

struct ArgSpec {
  std::set<std::string> switches;    // e.g. --json
  std::set<std::string> with_value;  // e.g. --by, -o
};

struct Args {
  std::vector<std::string> positional;
  std::set<std::string> switches;
  std::map<std::string, std::string> values;

  bool has(const std::string& flag) const { return switches.contains(flag); }
  std::optional<std::string> value(const std::string& flag) const;
};

// Throws UsageError with a message naming the offending argument.
Args parse_args(const std::vector<std::string>& argv, const ArgSpec& spec);

// A command line heapleak cannot run: kExitUsage when it does not parse;
// kExitInvalidArgument (InvalidArgument below) for a value in its place that
// means nothing (not an address, no such --by), as heapleak-client's daemon
// refuses those params.
struct UsageError {
  std::string message;
  int code = kExitUsage;
};

inline UsageError InvalidArgument(std::string message) {
  return UsageError{std::move(message), kExitInvalidArgument};
}

// Parses a non-negative integer flag value; throws UsageError.
std::size_t parse_count(const std::string& flag, const std::string& text);

// Address arguments ("0x" + hex digits), in order; throws InvalidArgument naming
// the first that is not one.
std::vector<Address> parse_addresses(const std::vector<std::string>& texts);

}  // namespace heapleak::cli
