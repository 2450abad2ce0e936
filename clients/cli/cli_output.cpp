#include "clients/cli/cli_output.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/base/memory_headroom.h"
#include "core/base/safe_write.h"
#include "core/images/cached_load.h"
#include "core/loading/load_memory_guard.h"
#include "core/loading/memory_fit.h"
#include "core/reading/load_profile.h"

namespace heapleak::cli {

int exit_code_for(ErrorReason reason) {
  // By the reason's wire name, as heapleak-client maps the daemon's data.reason.
  return exit_code_for_reason(reason_name(reason), kExitNoAnswer);
}

int report_error(const Error& error) {
  std::cerr << "heapleak: " << error.message << "\n";
  return exit_code_for(error.reason);
}

bool write_output(const Args& args, const std::string& text) {
  if (auto file = args.value("-o")) {
    // core/base/safe_write.h: a temporary renamed into place, a device or FIFO
    // (-o /dev/stdout) written through; a full disk shows, nothing is half-written.
    if (auto error = write_file_safely(*file, text, SpecialTarget::kWriteThrough)) {
      std::cerr << "heapleak: " << error->message << "\n";
      return false;
    }
    return true;
  }
  std::cout << text;
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "heapleak: cannot write the output: " << std::strerror(errno) << "\n";
    return false;
  }
  return true;
}

std::string to_json_text(const boost::json::value& value) {
  return boost::json::serialize(value) + "\n";
}

bool write_doc(const Args& args, const text::Doc& doc) {
  for (const auto& warning : doc.warnings) std::cerr << "heapleak: warning: " << warning << "\n";
  return write_output(args, text::plain(doc));
}

bool json_wanted(const Args& args) {
  const auto format = args.value("--format");
  if (format && *format != "json" && *format != "text")
    throw UsageError{"--format expects text or json, got '" + *format + "'"};
  return args.has("--json") || format == std::optional<std::string>("json");
}

// A FIFO is never opened here, since opening one blocks and reading it steals bytes.
std::uint64_t load_peak_estimate(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return 0;
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {};
  in.read(magic, 2);
  const bool gzipped = in && magic[0] == '\x1f' && magic[1] == '\x8b';
  return estimate_peak_bytes(static_cast<std::uint64_t>(info.st_size) * (gzipped ? 8 : 1));
}

namespace {

std::unique_ptr<HeapCache> cache;

// Writes the cache images of the dumps this run parsed, one at a time on
// its own thread, from the moment each load ends: writing a large image
// (hundreds of MB into fresh page cache) then overlaps the next load and the
// analyses instead of adding its seconds after the answer.
class ImageWriter {
 public:
  // A run that leaves through exit() still finishes (and never abandons) its
  // writes: destroyed before `cache`, which was set up first.
  ~ImageWriter() { finish(); }
  void add(PendingImage image) {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(image));
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    changed_.notify_one();
  }
  // Waits for the queue to drain; returns the warnings of failed writes.
  std::vector<std::string> finish() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    changed_.notify_one();
    if (thread_.joinable()) thread_.join();
    std::lock_guard lock(mutex_);
    done_ = false;
    return std::exchange(warnings_, {});
  }

 private:
  void run() {
    for (;;) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return done_ || !queue_.empty(); });
      if (queue_.empty()) return;
      PendingImage image = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      auto warning = image.write();
      lock.lock();
      if (warning) warnings_.push_back(std::move(*warning));
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<PendingImage> queue_;
  std::vector<std::string> warnings_;
  bool done_ = false;
  std::thread thread_;
};

ImageWriter& image_writer() {
  static ImageWriter writer;
  return writer;
}

// Heaps bound to an image (mapped from one, or parsed and written): the
// analyses their queries computed are kept next to the images at exit
// (core/images/heap_cache.h's store_analyses).
std::mutex kept_mutex;
std::vector<std::shared_ptr<const Heap>> kept;

// One load's outcome; its warning is printed by the caller, so loads that
// ran at once still print in the order of their paths.
struct LoadOutcome {
  Result<std::shared_ptr<const Heap>> heap = Error{ErrorReason::kCancelled, "not loaded"};
  std::optional<std::string> warning;
};

// What --max-memory set (main): the bytes this run may take.
std::optional<std::uint64_t> memory_cap;

LoadOutcome load_through_cache(const std::string& path, const LoadOptions& options) {
  // Without --max-memory the memory left is the run's budget: a load that
  // cannot fit stops with overBudget (exit 9, saying why) instead of the
  // kernel killing the run part way (core/loading/load_memory_guard.h).
  LoadControl control;
  std::optional<LoadMemoryGuard> guard;
  if (!memory_cap) guard.emplace(path, options.mode).watch(control);
  CachedLoad loaded = load_heap_cached(&cli_cache(), path, options, control);
  if (!loaded.heap && guard && !guard->reason().empty()) {
    loaded.heap =
        Error{ErrorReason::kOverBudget,
              guard->reason() + "; free memory first (--max-memory SIZE overrides this check)"};
  }
  if (loaded.heap && (loaded.pending || (*loaded.heap)->image_binding())) {
    std::lock_guard lock(kept_mutex);
    kept.push_back(*loaded.heap);
  }
  if (loaded.pending) image_writer().add(std::move(*loaded.pending));
  return {std::move(loaded.heap), std::move(loaded.warning)};
}

// How load_at_once runs a command's loads: at most `at_once` at a time, in
// `order` (indices into the paths; empty: the paths' order), and what to do
// with a heap on its loading thread as soon as it is loaded. When one load
// is `critical` (the command's answer waits on it and on work after it), the
// others run at a lower priority: they fill the core it leaves.
struct LoadSchedule {
  std::size_t at_once = SIZE_MAX;
  std::vector<std::size_t> order;
  std::function<void(std::size_t, const Heap&)> after_load;  // with the path's index
  std::optional<std::size_t> critical;
};

// Lowers the calling thread's priority (nice 10; Linux's nice is per
// thread, and the threads a load starts inherit it). It cannot be raised
// back without privilege: only load_at_once's own threads call it.
void lower_this_threads_priority() {
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 10);
}

// Loads the dumps at once, at most `at_once` at a time and as many as fit in
// the memory left (core/base/memory_headroom.h), each on its own thread (this one
// among them). On 2 cores explain's three loads of syn1700 took 5.2-6.5 s
// instead of 10-12 s one after the other: a single load leaves the second
// core mostly idle (its reader and prefaulter are light), and with 4 KiB
// pages (core/base/column.h) faults in parallel no longer stall each other. An
// exception thrown by a load is rethrown here.
std::vector<LoadOutcome> load_at_once(const std::vector<std::string>& paths,
                                      const std::vector<LoadOptions>& options,
                                      const LoadSchedule& schedule) {
  cli_cache();  // configured before the threads share it
  std::vector<std::size_t> order = schedule.order;
  if (order.empty()) {
    for (std::size_t k = 0; k < paths.size(); ++k) order.push_back(k);
  }
  std::size_t at_once = schedule.at_once;
  if (at_once > 1 && paths.size() > 1) {
    std::vector<std::uint64_t> estimates;
    for (const auto& path : paths) estimates.push_back(load_peak_estimate(path));
    at_once = loads_that_fit(estimates, memory_headroom_bytes(), at_once);
  }
  std::vector<LoadOutcome> outcomes(paths.size());
  std::vector<std::exception_ptr> failures(paths.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t n; (n = next++) < order.size();) {
      const std::size_t k = order[n];
      if (schedule.critical && k != *schedule.critical) lower_this_threads_priority();
      try {
        outcomes[k] = load_through_cache(paths[k], options[k]);
      } catch (...) {
        failures[k] = std::current_exception();
        continue;
      }
      if (schedule.after_load && outcomes[k].heap) {
        try {
          schedule.after_load(k, **outcomes[k].heap);
        } catch (...) {
          // Left for the command: it computes the same again and reports the error.
        }
      }
    }
  };
  // With a critical load, every load runs on a thread of its own, since
  // some lower their priority for good.
  const std::size_t own = schedule.critical ? 0 : 1;
  std::vector<std::thread> threads;
  for (std::size_t k = own; k < std::min(at_once, paths.size()); ++k) threads.emplace_back(work);
  if (own) work();
  for (auto& thread : threads) thread.join();
  for (const auto& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  return outcomes;
}

// A run that cannot fit, refused before its first load (core/loading/memory_fit.h).
// Only without the cache: with it, a heap parsed is written to an image and
// mapped, pages the kernel can drop instead of ending the run.
// `analysed`: the index of the heap whose dominator tree and root paths the
// run computes.
std::optional<Error> refusal_to_load(const std::vector<std::string>& paths,
                                     const std::vector<LoadOptions>& options,
                                     std::optional<std::size_t> analysed = std::nullopt) {
  if (cli_cache().enabled()) return std::nullopt;
  std::vector<PlannedLoad> loads;
  for (std::size_t k = 0; k < paths.size(); ++k)
    loads.push_back({paths[k], options[k].mode, analysed == k});
  const FitVerdict verdict = judge_fit(loads, memory_cap ? *memory_cap : memory_headroom_bytes());
  if (verdict.fits) return std::nullopt;
  return Error{ErrorReason::kOverBudget, fit_refusal_message(verdict)};
}

// load_all_or_report's work, with a schedule.
std::vector<std::shared_ptr<const Heap>> load_scheduled(
    const std::vector<std::string>& paths, const std::vector<LoadOptions>& options, int& exit_code,
    const LoadSchedule& schedule, std::vector<std::string>* errors = nullptr) {
  std::vector<std::shared_ptr<const Heap>> heaps;
  // The critical load is the one whose analyses the command waits for.
  if (auto refusal = refusal_to_load(paths, options, schedule.critical)) {
    if (errors) errors->push_back(refusal->message);
    exit_code = report_error(*refusal);
    return heaps;
  }
  for (auto& outcome : load_at_once(paths, options, schedule)) {
    if (outcome.warning) std::cerr << "heapleak: warning: " << *outcome.warning << "\n";
    if (!outcome.heap) {
      if (errors) errors->push_back(outcome.heap.error().message);
      if (exit_code == kExitOk) exit_code = report_error(outcome.heap.error());
      continue;
    }
    warn_about_load(**outcome.heap);
    heaps.push_back(*outcome.heap);
  }
  if (exit_code != kExitOk) heaps.clear();
  return heaps;
}

}  // namespace

void configure_cache(const CacheOptions& options) { cache = std::make_unique<HeapCache>(options); }

void configure_memory_cap(std::optional<std::uint64_t> max_bytes) { memory_cap = max_bytes; }

const HeapCache& cli_cache() {
  if (!cache) configure_cache({});
  return *cache;
}

void write_pending_images() {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<std::string> warnings = image_writer().finish();
  for (const auto& warning : warnings) std::cerr << "heapleak: warning: " << warning << "\n";
  const auto images_done = std::chrono::steady_clock::now();
  // The images written meanwhile bound their heaps: every heap's analyses
  // computed by now go next to its image.
  std::lock_guard lock(kept_mutex);
  for (const auto& heap : kept) {
    if (auto warning = cli_cache().store_analyses(*heap))
      std::cerr << "heapleak: warning: " << *warning << "\n";
  }
  // What writing the cache costs after the answer (bench/run.sh prints it).
  if (LoadProfile::enabled() && !kept.empty()) {
    using seconds = std::chrono::duration<double>;
    std::cerr << "heapleak: cache: waited " << seconds(images_done - started).count()
              << " s for the images written meanwhile; analyses of " << kept.size()
              << " heap(s) kept in "
              << seconds(std::chrono::steady_clock::now() - images_done).count() << " s\n";
  }
  kept.clear();
}

std::shared_ptr<const Heap> load_or_report(const std::string& path, LoadOptions options,
                                           int& exit_code) {
  options.split_from_bytes = std::min(options.split_from_bytes, kSplitWhenAloneFrom);
  if (auto refusal = refusal_to_load({path}, {options})) {
    exit_code = report_error(*refusal);
    return nullptr;
  }
  auto outcome = load_through_cache(path, options);
  if (outcome.warning) std::cerr << "heapleak: warning: " << *outcome.warning << "\n";
  if (!outcome.heap) {
    exit_code = report_error(outcome.heap.error());
    return nullptr;
  }
  warn_about_load(**outcome.heap);
  return *outcome.heap;
}

GroupBy group_by_option(const Args& args) {
  auto by = args.value("--by");
  if (!by) return GroupBy::kClass;
  auto group_by = parse_group_by(*by);
  if (!group_by) throw InvalidArgument("--by expects class, site or generation, got '" + *by + "'");
  return *group_by;
}

std::vector<std::shared_ptr<const Heap>> load_all_or_report(const std::vector<std::string>& paths,
                                                            const std::vector<LoadOptions>& options,
                                                            int& exit_code, std::size_t at_once) {
  LoadSchedule schedule;
  schedule.at_once = at_once;
  return load_scheduled(paths, options, exit_code, schedule);
}

std::vector<std::shared_ptr<const Heap>> load_leak_dumps(const std::vector<std::string>& paths,
                                                         int& exit_code,
                                                         std::vector<std::string>* errors) {
  // Only B needs references; A and C answer identity and growth questions.
  // B is the second dump of A B [C], and D(N-1) of a series D1..DN (N >= 4:
  // explain's series, core/series/series_growth.h): the second-to-last.
  const std::size_t target = paths.size() >= 3 ? paths.size() - 2 : 1;
  std::vector<LoadOptions> options(paths.size());
  for (std::size_t k = 0; k < options.size(); ++k)
    options[k].mode = k == target ? LoadMode::kFull : LoadMode::kIdentityOnly;
  // B is the longest load, and the analyses on it (dominators, root paths:
  // ~0.3 s on syn1700's 6 M objects) need nothing else. So B goes first,
  // its thread goes on to them, and A and C load beside it at a lower
  // priority, on the core it leaves. On syn1700, cold: 3.05-3.10 s against
  // 3.30-3.46 s with three equal loads (B, the longest, then ended last and
  // the analyses ran on one core), and 3.4-3.5 s with B and its analyses on
  // one thread and A then C on the other. A longer series keeps three loads
  // at a time: two identity-only loads beside B already fill the cores.
  LoadSchedule schedule;
  schedule.at_once = 3;
  schedule.after_load = [target](std::size_t k, const Heap& heap) {
    // (A and C may come from full images, with edges: not theirs.)
    if (k != target || !heap.report().edges_built) return;
    heap.dominators();
    heap.root_paths();
  };
  if (paths.size() >= 2) {
    schedule.order = {target, 0};
    schedule.critical = target;
  }
  for (std::size_t k = 1; k < paths.size(); ++k)
    if (k != target) schedule.order.push_back(k);
  return load_scheduled(paths, options, exit_code, schedule, errors);
}

void warn_about_load(const Heap& heap) {
  const LoadReport& report = heap.report();
  if (report.broken_lines > 0) {
    std::cerr << "heapleak: " << report.path << ": skipped " << report.broken_lines
              << " broken line(s), first at line";
    for (std::size_t k = 0; k < report.first_broken_lines.size() && k < 5; ++k) {
      std::cerr << (k ? ", " : " ") << report.first_broken_lines[k] << " ("
                << report.first_broken_reasons[k] << ")";
    }
    std::cerr << "\n";
  }
}

}  // namespace heapleak::cli
