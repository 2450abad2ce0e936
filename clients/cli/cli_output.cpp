#include "clients/cli/cli_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
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
#include "engine/image_writer.h"
#include "engine/load_plan.h"

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

namespace {

std::unique_ptr<HeapCache> cache;

// The cache images of the dumps this run parsed (engine/image_writer.h).
// A run that leaves through exit() still finishes its writes: destroyed
// before `cache`, which was set up first.
engine::ImageWriter& image_writer() {
  static engine::ImageWriter writer;
  return writer;
}

// Heaps bound to an image (mapped from one, or parsed and written): the
// analyses their queries computed are kept next to the images at exit
// (core/images/heap_cache.h's store_analyses).
std::mutex kept_mutex;
std::vector<std::shared_ptr<const Heap>> kept;
// Dumps streamed, whose images are written after the answer.
std::vector<std::string> images_later;

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

// Loads a plan's dumps at once, in its order, at most plan.at_once at a time
// and as many as fit in
// the memory left (core/base/memory_headroom.h), each on its own thread (this one
// among them). On 2 cores explain's three loads of syn1700 took 5.2-6.5 s
// instead of 10-12 s one after the other: a single load leaves the second
// core mostly idle (its reader and prefaulter are light), and with 4 KiB
// pages (core/base/column.h) faults in parallel no longer stall each other. An
// exception thrown by a load is rethrown here.
std::vector<LoadOutcome> load_at_once(const std::vector<std::string>& paths,
                                      const std::vector<LoadOptions>& options,
                                      const engine::LoadPlan& plan) {
  cli_cache();  // configured before the threads share it
  const std::vector<std::size_t>& order = plan.order;
  std::size_t at_once = plan.at_once;
  if (at_once > 1 && paths.size() > 1) {
    std::vector<std::uint64_t> estimates;
    for (const auto& path : paths) estimates.push_back(engine::load_peak_estimate(path));
    at_once = loads_that_fit(estimates, memory_headroom_bytes(), at_once);
  }
  std::vector<LoadOutcome> outcomes(paths.size());
  std::vector<std::exception_ptr> failures(paths.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t n; (n = next++) < order.size();) {
      const std::size_t k = order[n];
      if (plan.target && k != *plan.target) engine::lower_this_threads_priority();
      try {
        outcomes[k] = load_through_cache(paths[k], options[k]);
      } catch (...) {
        failures[k] = std::current_exception();
        continue;
      }
      if (plan.target == k && outcomes[k].heap) {
        try {
          engine::analyse_target(**outcomes[k].heap);
        } catch (...) {
          // Left for the command: it computes the same again and reports the error.
        }
      }
    }
  };
  // With a target, every load runs on a thread of its own, since some
  // lower their priority for good.
  const std::size_t own = plan.target ? 0 : 1;
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
  {
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
  // The streamed dumps' images, one load at a time once the answer's heaps
  // are gone, each written before the next loads: the run's peak stays the
  // answer's.
  const auto later_started = std::chrono::steady_clock::now();
  std::vector<std::string> paths;
  paths.swap(images_later);
  for (const std::string& path : paths) {
    LoadOptions options;
    options.mode = LoadMode::kIdentityOnly;
    options.split_from_bytes = kSplitWhenAloneFrom;
    LoadOutcome outcome = load_through_cache(path, options);
    if (outcome.warning) std::cerr << "heapleak: warning: " << *outcome.warning << "\n";
    for (const auto& warning : image_writer().finish())
      std::cerr << "heapleak: warning: " << warning << "\n";
    std::lock_guard lock(kept_mutex);
    kept.clear();
  }
  if (LoadProfile::enabled() && !paths.empty()) {
    std::cerr
        << "heapleak: cache: " << paths.size() << " streamed dump(s) loaded and written in "
        << std::chrono::duration<double>(std::chrono::steady_clock::now() - later_started).count()
        << " s after the answer\n";
  }
}

void write_image_later(const std::string& path) {
  const HeapCache& cache = cli_cache();
  if (!cache.enabled() || cache.unsafe()) return;
  images_later.push_back(path);
}

GroupBy group_by_option(const Args& args) {
  auto by = args.value("--by");
  if (!by) return GroupBy::kClass;
  auto group_by = parse_group_by(*by);
  if (!group_by) throw InvalidArgument("--by expects class, site or generation, got '" + *by + "'");
  return *group_by;
}

std::vector<std::shared_ptr<const Heap>> load_planned(const engine::LoadPlan& plan, int& exit_code,
                                                      std::vector<std::string>* errors,
                                                      bool broken_lines) {
  std::vector<std::string> paths;
  std::vector<LoadOptions> options(plan.loads.size());
  for (std::size_t k = 0; k < plan.loads.size(); ++k) {
    paths.push_back(plan.loads[k].path);
    options[k].mode = plan.loads[k].mode;
    // A load alone has both cores: a large plain dump is read in two halves.
    if (plan.loads.size() == 1) options[k].split_from_bytes = kSplitWhenAloneFrom;
  }
  std::vector<std::shared_ptr<const Heap>> heaps;
  // The target is the load whose analyses the command waits for.
  if (auto refusal = refusal_to_load(paths, options, plan.target)) {
    if (errors) errors->push_back(refusal->message);
    exit_code = report_error(*refusal);
    return heaps;
  }
  for (auto& outcome : load_at_once(paths, options, plan)) {
    if (outcome.warning) std::cerr << "heapleak: warning: " << *outcome.warning << "\n";
    if (!outcome.heap) {
      if (errors) errors->push_back(outcome.heap.error().message);
      if (exit_code == kExitOk) exit_code = report_error(outcome.heap.error());
      continue;
    }
    if (broken_lines) warn_about_load(**outcome.heap);
    heaps.push_back(*outcome.heap);
  }
  if (exit_code != kExitOk) heaps.clear();
  return heaps;
}

std::shared_ptr<const Heap> load_alone(const std::string& path, LoadMode mode, int& exit_code,
                                       std::vector<std::string>* errors, bool broken_lines) {
  engine::LoadPlan plan;
  plan.loads = {{path, mode}};
  plan.order = {0};
  plan.at_once = 1;
  auto heaps = load_planned(plan, exit_code, errors, broken_lines);
  return heaps.empty() ? nullptr : heaps.front();
}

engine::ReadWithReferences reread_with_references(const std::vector<std::string>& paths) {
  return [paths](std::size_t k) -> std::shared_ptr<const Heap> {
    int exit_code = kExitOk;
    return load_alone(paths.at(k), LoadMode::kFull, exit_code);
  };
}

void warn_about_load(const Heap& heap) { warn_about_load(heap.report()); }

void warn_about_load(const LoadReport& report) {
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
