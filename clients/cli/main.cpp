// heapleak: the one-shot command. Loads dumps itself, answers one question,
// exits; for many questions on the same dumps use heapleakd.
#include <malloc.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "clients/cli/child_runs.h"
#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/size_arg.h"

namespace {

constexpr const char* kUsage =
    R"(heapleak - find why a Ruby process leaks memory, from ObjectSpace.dump_all dumps

usage:
  heapleak stats A B [C] [--by class|site|generation] [--json] [-o FILE]
      objects in B that were not in A and are still alive in C (the leak)
  heapleak root HEAP ADDR... [--min-samples K] [--format dot|svg|png|json] [-o FILE]
      the nearest object that holds all the sample objects, as a Graphviz graph
  heapleak path HEAP ADDR [--json]
      the shortest path from a GC root to an object
  heapleak explain A B [C] [--json | --format jsonl]
      the leak groups with their owners, retained bytes and root paths
  heapleak report A B [C] [-o report.html]
      explain's rows as one self-contained HTML page: cards, growth charts, graphs, treemap
  heapleak fleet DIR... [-o FILE] [--jobs N] [--max-memory SIZE] [--print-commands]
      the leak rows of every series under the directories, as one JSON-lines table
  heapleak owner HEAP ADDR... [--dot] [--json]
      the object that owns (dominates) the given objects
  heapleak top HEAP [--by object|class] [--json]
      what keeps the most memory alive, and duplicate strings
  heapleak info HEAP [--json]
      what the dump holds and what could not be read
  heapleak check A B [C] [--max-leaked-bytes SIZE] [--baseline FILE] [--format text|json|sarif|junit] [--report FILE]
      the leak gate for CI: exit 5 on a new leak or over budget
  heapleak cache list|clear [--json]
      the cached images of parsed dumps (reopened without parsing), or delete them
  heapleak capture PID|SOCKET --out DIR [--series] [--interval T] [--every N] [--trace]
      dumps from a live Ruby process running the heapleak-capture gem (then explain)
  heapleak redact IN OUT | IN... OUTDIR [--key-file FILE]
      a copy of dumps with every string value replaced by a keyed hash of its length
  heapleak export HEAP OUTDIR [--format jsonl|csv] [--ivar-names]
      the heap as tables for DuckDB and Spark (heap_object, heap_reference, ...)

Every command that loads takes --no-cache, --cache-dir DIR (default
$HEAPLEAK_CACHE_DIR, else $XDG_CACHE_HOME/heapleak, else ~/.cache/heapleak)
and --cache-max-bytes N (default 10 GiB; least recently used images go first).
Without the cache, a run whose dumps cannot fit the memory left (available
memory, or the memory cgroup's limit) is refused before it starts (exit 9);
--max-memory SIZE (e.g. 6G) says what it may take instead.

Dumps may be plain or gzipped. `heapleak COMMAND --help` tells more.
)";

// The overview, then the exit codes heapleak-client's --help shows too.
std::string usage() { return std::string(kUsage) + "\n" + heapleak::exit_code_table(); }

// When args[k] is `flag VALUE` or `flag=VALUE`: takes it out of `args` and
// returns VALUE.
std::optional<std::string> take_flag_value(std::vector<std::string>& args, std::size_t k,
                                           const std::string& flag) {
  const std::string& arg = args[k];
  if (arg.rfind(flag + "=", 0) == 0) {
    std::string v = arg.substr(flag.size() + 1);
    args.erase(args.begin() + k);
    return v;
  }
  if (arg != flag) return std::nullopt;
  if (k + 1 >= args.size()) throw heapleak::cli::UsageError{flag + " expects a value"};
  std::string v = args[k + 1];
  args.erase(args.begin() + k, args.begin() + k + 2);
  return v;
}

// Takes the cache flags out of `args` (every command accepts them).
heapleak::CacheOptions cache_flags(std::vector<std::string>& args) {
  heapleak::CacheOptions options;
  for (std::size_t k = 0; k < args.size();) {
    const std::string& arg = args[k];
    auto value = [&](const std::string& flag) { return take_flag_value(args, k, flag); };
    if (arg == "--no-cache") {
      options.enabled = false;
      args.erase(args.begin() + k);
    } else if (auto dir = value("--cache-dir")) {
      options.dir = *dir;
    } else if (auto max = value("--cache-max-bytes")) {
      options.max_bytes = heapleak::cli::parse_count("--cache-max-bytes", *max);
    } else {
      ++k;
    }
  }
  return options;
}

// Takes --max-memory SIZE out of `args` (fleet keeps its own, a budget for
// the runs it starts).
std::optional<std::uint64_t> memory_flag(std::vector<std::string>& args) {
  std::optional<std::uint64_t> max_bytes;
  for (std::size_t k = 0; k < args.size();) {
    if (auto value = take_flag_value(args, k, "--max-memory"))
      max_bytes = heapleak::cli::parse_byte_size("--max-memory", *value);
    else
      ++k;
  }
  return max_bytes;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace heapleak;
  using namespace heapleak::cli;
  // A run of `heapleak fleet` ends with the fleet, however the fleet ends.
  die_with_parent_if_asked();
  // Allocations of 4 MiB and more are mapped, as Columns are: freed, their
  // pages go back at once. glibc's default raises that threshold to the size
  // of any mapped block freed, so a pass's per-object arrays (a byte or four
  // per object of B) came from the heap and stayed resident after the pass:
  // explain's peak on syn1700 was 637 MB instead of 629.
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << usage();
    return kExitUsage;
  }
  const std::string command = args.front();
  args.erase(args.begin());
  try {
    heapleak::cli::configure_cache(cache_flags(args));
    if (command != "fleet") heapleak::cli::configure_memory_cap(memory_flag(args));
    // Images of the dumps parsed are written meanwhile; the run waits for
    // them once the answer is out.
    struct WriteImages {
      ~WriteImages() { write_pending_images(); }
    } write_images;
    if (command == "cache") return run_cache(args);
    if (command == "stats") return run_stats(args);
    if (command == "root") return run_root(args);
    if (command == "path") return run_path(args);
    if (command == "info") return run_info(args);
    if (command == "explain") return run_explain(args);
    if (command == "report") return run_report(args);
    if (command == "owner") return run_owner(args);
    if (command == "top") return run_top(args);
    if (command == "check") return run_check(args);
    if (command == "redact") return run_redact(args);
    if (command == "capture") return run_capture(args);
    if (command == "fleet") return run_fleet(args);
    if (command == "export") return run_export(args);
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << usage();
      return kExitOk;
    }
    if (command == "--version") {
      std::cout << "heapleak " << kHeapleakVersion << "\n";
      return kExitOk;
    }
    std::cerr << "heapleak: unknown command '" << command << "'\n\n" << usage();
    return kExitUsage;
  } catch (const UsageError& error) {
    std::cerr << "heapleak " << command << ": " << error.message << " (see heapleak " << command
              << " --help)\n";
    return error.code;
  } catch (const std::exception& error) {
    std::cerr << "heapleak: internal error: " << error.what() << "\n";
    return kExitNoAnswer;
  }
}
