// `heapleak fleet DIR...`: the leak rows of every series under the
// directories as one table. Each series (the dumps of one process,
// core/series/fleet_series.h) is a plain `heapleak explain ... --format jsonl` run in
// a child process, as many at once as the cores and the memory allow; their
// rows are concatenated in series order. `--print-commands` prints those runs
// instead, for a scheduler of the fleet's own (docs/fleet.md).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "clients/cli/child_runs.h"
#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/size_arg.h"
#include "core/base/memory_headroom.h"
#include "core/series/fleet_series.h"
#include "results/text/terminal_safe.h"

namespace heapleak::cli {
namespace {

constexpr const char* kHelp = R"(usage: heapleak fleet DIR... [options]

The leak rows of every series under the directories, as one JSON-lines
table (explain --format jsonl's columns, docs/fleet.md). A series is the
dumps of one process: grouped by the capture manifests' host, pid and start
time when the dumps have them, else by directory; ordered by GC count, else
dump time. Each series is one `heapleak explain A B C --format jsonl` run in
a process of its own, as many at once as --jobs and --max-memory allow. A
series that fails is reported on stderr and the others go on.

options:
  -o FILE           write the table to FILE instead of stdout
  --jobs N          at most N series at once (default: the cores)
  --max-memory SIZE the runs at once together may peak at most SIZE (e.g. 8G;
                    default: the memory available); each is estimated as the
                    loads of its dumps (half the JSON + 16 MiB each)
  --print-commands  print the explain command of each series, one a line,
                    instead of running them; cat their outputs for the same
                    table. For people: quoted for sh, and a series whose
                    paths hold a control character is left out (exit 1)
  --format json     with --print-commands: each command as one JSON array of
                    its words a line, for a scheduler that runs argv as it is
  --run N           run the Nth command (1-based) of --print-commands here,
                    with no shell: the form for xargs -P, a Kubernetes Job or
                    a CI matrix (docs/fleet.md), whatever the folders are named
  --out-dir DIR     with --print-commands or --run: command N writes
                    DIR/NNNN.jsonl

The cache flags (--no-cache, --cache-dir, --cache-max-bytes) go to every run.

Exit codes: 0 every series ran, 1 some failed or none was found (the table
holds the rows of those that ran), 2 usage error; stopped by Ctrl-C, SIGTERM
or SIGHUP: its runs are stopped too, nothing is written, 128 + the signal.
)";

// Explain reads a whole series (growth per interval), but keeps every dump of
// it loaded: a longer series is sampled to eight dumps spread evenly, the
// first and the last among them.
constexpr std::size_t kDumpsPerRun = 8;

std::string self_path() {
  std::error_code error;
  auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("heapleak") : path.string();
}

std::string shell_quoted(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-./=:@%+,") == std::string::npos)
    return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Run {
  const FleetSeries* series = nullptr;
  std::vector<std::string> argv;  // the command, program first
  std::uint64_t estimate = 0;     // bytes its loads may peak at
  std::string out, err;           // its files under the scratch directory
  pid_t pid = 0;
  int status = -1;  // waitpid's, or -1: never started
  std::string failure;
};

// The cache flags fleet was given (main took them out of its arguments),
// for each run: what differs from what a run would do by itself.
std::vector<std::string> cache_flags() {
  const HeapCache& cache = cli_cache();
  std::vector<std::string> flags;
  if (cache.dir() != default_cache_dir()) flags.insert(flags.end(), {"--cache-dir", cache.dir()});
  const char* off = std::getenv("HEAPLEAK_NO_CACHE");
  const bool off_by_env = off && *off && std::string_view(off) != "0";
  if (!cache.enabled() && !off_by_env) flags.push_back("--no-cache");
  if (cache.max_bytes() != CacheOptions{}.max_bytes)
    flags.insert(flags.end(), {"--cache-max-bytes", std::to_string(cache.max_bytes())});
  return flags;
}

std::vector<std::string> explain_argv(const std::string& program, const FleetSeries& series) {
  std::vector<std::string> argv{program, "explain"};
  for (const auto& dump : dumps_to_compare(series, kDumpsPerRun)) argv.push_back(dump.path);
  argv.insert(argv.end(), {"--format", "jsonl"});
  for (auto& flag : cache_flags()) argv.push_back(std::move(flag));
  return argv;
}

// A byte a terminal or a line-oriented reader would take as more than text:
// the C0 controls (newline, ESC), DEL. Such a word cannot go on one line.
bool has_control_character(const std::vector<std::string>& words) {
  for (const auto& word : words)
    for (unsigned char c : word)
      if (c < 0x20 || c == 0x7f) return true;
  return false;
}

std::string json_line(const std::vector<std::string>& words) {
  boost::json::array array;
  for (const auto& word : words) array.emplace_back(word);
  return boost::json::serialize(array) + "\n";
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& word : argv) line += (line.empty() ? "" : " ") + shell_quoted(word);
  return line;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

bool spawn(Run& run) {
  run.pid = spawn_child(run.argv, run.out, run.err, run.failure);
  return run.pid != 0;
}

// Stops the runs still going (SIGTERM, then SIGKILL after a grace period)
// and reaps them, so that none outlives the fleet or writes into a scratch
// directory that is gone. Only pids not reaped yet are signalled: a reaped
// one may name another process by now.
void stop_runs(std::map<pid_t, std::size_t> running) {
  for (const auto& [pid, run] : running) ::kill(pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!running.empty() && std::chrono::steady_clock::now() < deadline) {
    const pid_t pid = ::waitpid(-1, nullptr, WNOHANG);
    if (pid > 0) running.erase(pid);
    if (pid == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (pid < 0 && errno != EINTR) return;  // no child left
  }
  for (const auto& [pid, run] : running) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
}

std::string why_failed(const Run& run) {
  std::string why;
  if (WIFEXITED(run.status))
    why = "exit " + std::to_string(WEXITSTATUS(run.status));
  else if (WIFSIGNALED(run.status))
    why = "killed by signal " + std::to_string(WTERMSIG(run.status));
  const auto said = lines_of(run.err);
  return said.empty() ? why : why + ": " + said.back();
}

// The scratch directories of fleets that were killed (SIGKILL, the OOM
// killer): only ours (owner, a real directory, our name with a pid) and only
// when that pid is gone, as the cache clears its temporaries.
void remove_dead_scratch(const std::filesystem::path& temp_dir) {
  std::error_code error;
  for (std::filesystem::directory_iterator it(temp_dir, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    constexpr std::string_view kPrefix = "heapleak-fleet-";
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string rest = name.substr(kPrefix.size());
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || dash > 9 || rest.size() - dash - 1 != 6 ||
        rest.find_first_not_of("0123456789") != dash)
      continue;
    const long pid = std::stol(rest.substr(0, dash));
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
      continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) continue;  // still running
    std::error_code ignored;
    std::filesystem::remove_all(it->path(), ignored);
  }
}

}  // namespace

int run_fleet(const std::vector<std::string>& argv) {
  const Args args =
      parse_args(argv, {{"--print-commands", "--help", "-h"},
                        {"-o", "--jobs", "--max-memory", "--out-dir", "--format", "--run"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.empty()) throw UsageError{"expects one or more directories"};
  std::size_t jobs = std::max(1u, std::thread::hardware_concurrency());
  if (auto value = args.value("--jobs"))
    jobs = std::max<std::size_t>(1, parse_count("--jobs", *value));
  // 0: no --max-memory (the memory available is the budget then).
  const std::uint64_t max_memory =
      args.value("--max-memory") ? parse_byte_size("--max-memory", *args.value("--max-memory")) : 0;
  if (args.value("--out-dir") && !args.has("--print-commands") && !args.value("--run"))
    throw UsageError{"--out-dir goes with --print-commands or --run"};
  const auto format = args.value("--format");
  if (format && (*format != "json" || !args.has("--print-commands")))
    throw UsageError{"--format json goes with --print-commands"};
  if (args.value("--run") && args.value("-o"))
    throw UsageError{"--run N writes where command N does: give --out-dir, not -o"};
  if (args.value("--run") && args.has("--print-commands"))
    throw UsageError{"--run N runs one command of --print-commands: give one of them"};
  std::size_t run_number = 0;
  if (auto value = args.value("--run")) {
    run_number = parse_count("--run", *value);
    if (run_number == 0) throw UsageError{"--run counts from 1"};
  }

  const auto started = std::chrono::steady_clock::now();
  const FleetScan scan = find_fleet_series(args.positional);
  for (const auto& error : scan.errors) std::cerr << "heapleak fleet: " << error << "\n";
  for (const auto& warning : scan.warnings)
    std::cerr << "heapleak fleet: warning: " << text::shown(warning) << "\n";
  const std::string program = self_path();
  std::vector<Run> runs;
  std::vector<std::string> skipped;
  for (const auto& series : scan.series) {
    if (series.dumps.size() < 2) {
      skipped.push_back(series.name + ": one dump (" + series.dumps.front().path +
                        "), explain needs two");
      continue;
    }
    Run run;
    run.series = &series;
    run.argv = explain_argv(program, series);
    for (const auto& dump : dumps_to_compare(series, kDumpsPerRun))
      run.estimate += engine::load_peak_estimate(dump.path);
    runs.push_back(std::move(run));
  }

  // Command k's words as --print-commands and --run give them.
  const auto out_dir = args.value("--out-dir");
  auto command_words = [&](std::size_t k) {
    std::vector<std::string> words = runs[k].argv;
    if (out_dir) {
      char name[32];
      std::snprintf(name, sizeof name, "/%04zu.jsonl", k + 1);
      words.insert(words.end(), {"-o", *out_dir + name});
    }
    return words;
  };

  if (run_number > 0) {
    // No shell, no quoting: the words go to execv as they are.
    if (run_number > runs.size()) {
      std::cerr << "heapleak fleet: --run " << run_number << ": there are " << runs.size()
                << " commands\n";
      return kExitNoAnswer;
    }
    const std::vector<std::string> words = command_words(run_number - 1);
    std::vector<char*> pointers;
    for (const auto& word : words) pointers.push_back(const_cast<char*>(word.c_str()));
    pointers.push_back(nullptr);
    std::cout.flush();
    ::execv(pointers[0], pointers.data());
    std::cerr << "heapleak fleet: cannot run " << words[0] << ": " << std::strerror(errno) << "\n";
    return kExitNoAnswer;
  }

  if (args.has("--print-commands")) {
    std::string text;
    const bool json = format.has_value();
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const std::vector<std::string> words = command_words(k);
      if (json) {
        text += json_line(words);  // JSON escapes every control character: one line each
      } else if (has_control_character(words)) {
        // A newline would make two commands of one line, ESC would speak to
        // the terminal: such a series is left out of the form for people.
        skipped.push_back(text::shown(runs[k].series->name) +
                          ": a path holds a control character; run it with --run " +
                          std::to_string(k + 1) + " or --print-commands --format json");
        text += "# " + std::to_string(k + 1) + ": left out (a control character in a path)\n";
      } else {
        text += command_line(words) + "\n";
      }
    }
    for (const auto& why : skipped) std::cerr << "heapleak fleet: skipped " << why << "\n";
    return write_output(args, text) ? (skipped.empty() ? kExitOk : kExitNoAnswer)
                                    : kExitCannotWrite;
  }

  // Each run writes its rows and its stderr into a scratch directory, named
  // with our pid so that the next fleet can remove it if we are SIGKILLed.
  const std::filesystem::path temp_dir = std::filesystem::temp_directory_path();
  remove_dead_scratch(temp_dir);
  std::string scratch =
      (temp_dir / ("heapleak-fleet-" + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (!::mkdtemp(scratch.data())) {
    std::cerr << "heapleak fleet: cannot make a scratch directory: " << std::strerror(errno)
              << "\n";
    return kExitCannotWrite;
  }
  for (std::size_t k = 0; k < runs.size(); ++k) {
    runs[k].out = scratch + "/" + std::to_string(k) + ".jsonl";
    runs[k].err = scratch + "/" + std::to_string(k) + ".err";
  }
  const std::uint64_t budget = max_memory ? max_memory : memory_headroom_bytes();
  std::map<pid_t, std::size_t> running;
  std::uint64_t held = 0;
  std::size_t next = 0;
  // Ctrl-C, SIGTERM or SIGHUP stop the runs and remove the scratch
  // directory; a SIGKILL cannot be seen, and each run dies with the fleet
  // by itself then (die_with_parent_if_asked). Taken only while runs go:
  // once they are done, a stop signal ends the fleet as it would any command.
  std::optional<StopSignals> stop_signals(std::in_place);
  int stopped_by = 0;
  while (next < runs.size() || !running.empty()) {
    if ((stopped_by = stop_signals->wait(0)) != 0) break;
    // Start what fits: one run always goes when none is running, unless
    // --max-memory says it cannot fit at all.
    while (next < runs.size() && running.size() < jobs) {
      Run& run = runs[next];
      if (max_memory && run.estimate > max_memory) {
        run.failure =
            "needs ~" + std::to_string(run.estimate >> 20) + " MiB to load, over --max-memory";
        ++next;
        continue;
      }
      if (!running.empty() && held + run.estimate > budget) break;
      ++next;
      if (!spawn(run)) continue;
      running[run.pid] = &run - runs.data();
      held += run.estimate;
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid == 0) {  // none ended yet: wait for one, or for a stop signal
      if ((stopped_by = stop_signals->wait(1000)) != 0) break;
      continue;
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;  // no child left: cannot happen while `running` holds one
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    Run& run = runs[it->second];
    run.status = status;
    held -= run.estimate;
    running.erase(it);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) run.failure = why_failed(run);
  }

  if (stopped_by != 0) {
    stop_runs(running);
    std::error_code ignored;
    std::filesystem::remove_all(scratch, ignored);
    std::cerr << "heapleak fleet: stopped by " << strsignal(stopped_by) << "; " << running.size()
              << " runs stopped, " << runs.size() - next << " not started, no table written\n";
    return 128 + stopped_by;
  }
  stop_signals.reset();

  std::string table;
  std::size_t ran = 0, rows = 0;
  std::vector<std::string> failures, warnings;
  for (const auto& run : runs) {
    if (!run.failure.empty()) {
      failures.push_back(run.series->name + ": " + run.failure);
      continue;
    }
    // What explain warned of (dumps cut short, not one series) stays said.
    for (const auto& line : lines_of(run.err)) warnings.push_back(run.series->name + ": " + line);
    ++ran;
    std::ifstream in(run.out, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string rows_text = text.str();
    rows += static_cast<std::size_t>(std::count(rows_text.begin(), rows_text.end(), '\n'));
    table += rows_text;
  }
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  const bool written = write_output(args, table);

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::size_t found = runs.size() + skipped.size();
  char speed[64];
  std::snprintf(speed, sizeof speed, "%.1f s (%.1f series/s)", seconds,
                seconds > 0 ? static_cast<double>(ran) / seconds : 0.0);
  std::cerr << "heapleak fleet: " << found << " series found, " << ran << " run, "
            << failures.size() + skipped.size() << " failed; " << rows << " leak rows in " << speed
            << "\n";
  for (const auto& why : skipped) std::cerr << "  failed: " << why << "\n";
  for (const auto& why : failures) std::cerr << "  failed: " << why << "\n";
  for (const auto& what : warnings) std::cerr << "  " << what << "\n";
  if (!written) return kExitCannotWrite;
  return found > 0 && failures.empty() && skipped.empty() ? kExitOk : kExitNoAnswer;
}

}  // namespace heapleak::cli
