// heapleak: the one-shot command. Loads dumps itself, answers one question,
// exits; for many questions on the same dumps use heapleakd.
#include <iostream>
#include <string>
#include <vector>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"

namespace {

constexpr const char* kUsage =
    R"(heapleak - find why a Ruby process leaks memory, from ObjectSpace.dump_all dumps

usage:
  heapleak stats A B [C] [--by class|site|generation] [--json] [-o FILE]
      objects in B that were not in A and are still alive in C (the leak)
  heapleak root HEAP ADDR... [--min-samples K] [--json] [-o FILE]
      the nearest object that holds all the sample objects, as a Graphviz graph
  heapleak path HEAP ADDR [--json]
      the shortest path from a GC root to an object
  heapleak explain A B [C] [--json]
      the leak groups with their owners, retained bytes and root paths
  heapleak owner HEAP ADDR... [--dot] [--json]
      the object that owns (dominates) the given objects
  heapleak top HEAP [--by object|class] [--json]
      what keeps the most memory alive, and duplicate strings
  heapleak info HEAP [--json]
      what the dump holds and what could not be read
  heapleak check A B [C] [--max-leaked-bytes SIZE] [--baseline FILE] [--format text|json|sarif|junit]
      the leak gate for CI: exit 5 on a new leak or over budget

Dumps may be plain or gzipped. `heapleak COMMAND --help` tells more.
Exit codes: 0 ok, 1 no answer, 2 usage error, 3 unreadable input, 4 unknown address,
5 check: the leak gate failed.
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace heapleak::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const std::string command = args.front();
  args.erase(args.begin());
  try {
    if (command == "stats") return run_stats(args);
    if (command == "root") return run_root(args);
    if (command == "path") return run_path(args);
    if (command == "info") return run_info(args);
    if (command == "explain") return run_explain(args);
    if (command == "owner") return run_owner(args);
    if (command == "top") return run_top(args);
    if (command == "check") return run_check(args);
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kUsage;
      return kExitOk;
    }
    if (command == "--version") {
      std::cout << "heapleak " << kHeapleakVersion << "\n";
      return kExitOk;
    }
    std::cerr << "heapleak: unknown command '" << command << "'\n\n" << kUsage;
    return kExitUsage;
  } catch (const UsageError& error) {
    std::cerr << "heapleak " << command << ": " << error.message << " (see heapleak " << command
              << " --help)\n";
    return kExitUsage;
  } catch (const std::exception& error) {
    std::cerr << "heapleak: internal error: " << error.what() << "\n";
    return kExitNoAnswer;
  }
}
