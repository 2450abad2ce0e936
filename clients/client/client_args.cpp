#include "clients/client/client_args.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "clients/client/exit_codes.h"

namespace heapleak::client {

namespace {

constexpr std::size_t kAny = SIZE_MAX;

const std::vector<CommandSpec>& commands() {
  static const std::vector<CommandSpec> specs = {
      {"load", {"--name"}, {}, 1, 1},
      {"list", {}, {}, 0, 0},
      {"unload", {}, {}, 1, 1},
      {"stats", {"--by", "--limit", "--samples"}, {}, 2, 3},
      {"root", {"-o", "--format", "--min-samples", "--max-visits", "--max-nodes"}, {}, 2, kAny},
      {"path", {}, {}, 2, 2},
      {"explain", {"--by", "--limit"}, {}, 2, kAny},
      {"report", {"--by", "--limit", "-o"}, {}, 2, kAny},
      {"owner", {"-o", "--format"}, {}, 2, kAny},
      {"top", {"--by", "--limit"}, {}, 1, 1},
      {"retained", {}, {}, 2, 2},
      {"tree", {"--depth", "--limit", "--min-bytes"}, {}, 1, 2},
      {"inspect", {}, {}, 2, 2},
      {"referrers", {"--offset", "--limit"}, {}, 2, 2},
      {"references", {"--offset", "--limit"}, {}, 2, 2},
      {"stop", {}, {}, 0, 0},
      {"cache", {}, {}, 1, 1},
      {"rpc", {}, {"--notifications"}, 0, 1},
  };
  return specs;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

ClientError usage(const std::string& message) { return ClientError{kExitUsage, message}; }

}  // namespace

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::size_t Args::number(const std::string& name, std::size_t fallback) const {
  auto text = value(name);
  if (!text) return fallback;
  std::size_t result = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), result);
  if (text->empty() || error != std::errc() || end != text->data() + text->size()) {
    throw usage(name + " expects a non-negative integer, got '" + *text + "'");
  }
  return result;
}

const CommandSpec* find_command(const std::string& command) {
  for (const auto& spec : commands()) {
    if (spec.name == command) return &spec;
  }
  return nullptr;
}

Args parse_args(const std::vector<std::string>& argv) {
  Args args;
  const CommandSpec* spec = nullptr;
  bool options_done = false;
  for (std::size_t k = 0; k < argv.size(); ++k) {
    std::string arg = argv[k];
    const bool is_option = !options_done && arg.size() > 1 && arg[0] == '-' && arg != "-";
    if (!is_option) {
      if (args.command.empty()) {
        args.command = arg;
        spec = find_command(arg);
        if (!spec && arg != "help") throw usage("unknown command '" + arg + "'");
      } else {
        args.positionals.push_back(arg);
      }
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      args.help = true;
      continue;
    }
    std::optional<std::string> inline_value;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const bool takes_value =
        contains(kGlobalValueOptions, arg) || (spec && contains(spec->value_options, arg));
    const bool is_flag = contains(kGlobalFlags, arg) || (spec && contains(spec->flag_options, arg));
    if (takes_value) {
      if (inline_value) {
        args.values[arg] = *inline_value;
      } else if (k + 1 < argv.size()) {
        args.values[arg] = argv[++k];
      } else {
        throw usage(arg + " needs a value");
      }
    } else if (is_flag && !inline_value) {
      args.flags.insert(arg);
    } else if (args.help) {
      continue;  // `CMD --help --whatever` still prints help
    } else {
      throw usage("unknown option " + arg + (args.command.empty() ? "" : " for " + args.command));
    }
  }
  if (args.help || !spec) return args;
  if (args.positionals.size() < spec->min_positionals) throw usage("missing arguments");
  if (args.positionals.size() > spec->max_positionals) {
    throw usage("unexpected argument '" + args.positionals[spec->max_positionals] + "'");
  }
  return args;
}

}  // namespace heapleak::client
