// Command-line parsing for heapleak-client: global options (anywhere on the
// line), the command word, its options and positionals. Pure: no I/O, no
// daemon; bad input throws ClientError with kExitUsage.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace heapleak::client {

struct CommandSpec {
  std::string name;
  std::vector<std::string> value_options;  // "--name", "-o" ...: take a value
  std::vector<std::string> flag_options;   // "--notifications" ...
  std::size_t min_positionals = 0;
  std::size_t max_positionals = 0;  // SIZE_MAX: any number
};

struct Args {
  std::string command;  // empty: none given
  std::vector<std::string> positionals;
  std::map<std::string, std::string> values;
  std::set<std::string> flags;
  bool help = false;

  bool has(const std::string& flag) const { return flags.count(flag) != 0; }
  std::optional<std::string> value(const std::string& name) const;
  // A non-negative integer option, or `fallback`; throws a usage error if malformed.
  std::size_t number(const std::string& name, std::size_t fallback) const;
};

// Options every command accepts.
inline const std::vector<std::string> kGlobalValueOptions = {"--socket", "--idle-timeout"};
inline const std::vector<std::string> kGlobalFlags = {"--spawn", "--json"};

// The spec of `command`, or nullptr when there is no such command.
const CommandSpec* find_command(const std::string& command);

// Parses argv[1..]. Checks options and counts against the command's spec
// unless --help was given.
Args parse_args(const std::vector<std::string>& argv);

}  // namespace heapleak::client
