#include "core/loading/loader.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/heap/heap_builder.h"
#include "core/reading/line_pipeline.h"
#include "core/reading/load_profile.h"
#include "core/reading/mapped_reads.h"
#include "core/reading/prefaulter.h"
#include "core/reading/record_parser.h"

namespace heapleak {
namespace {

bool cancelled(const LoadControl& control) {
  return control.cancel != nullptr && control.cancel->load(std::memory_order_relaxed);
}

void note_broken_line(LoadReport& report, std::uint64_t line_number, const char* reason) {
  ++report.broken_lines;
  if (report.first_broken_lines.size() < LoadReport::kMaxBrokenListed) {
    report.first_broken_lines.push_back(line_number);
    report.first_broken_reasons.emplace_back(reason ? reason : "unparsable");
  }
}

// A dump split in two (see SecondHalf): where a half's bytes start in the
// stream, and how far the other half has got (its bytes count toward the
// budget and the progress, which the loading thread alone reports).
struct Halves {
  std::uint64_t stream_base = 0;
  const std::atomic<std::uint64_t>* beside_stream_bytes = nullptr;
  const std::atomic<std::uint64_t>* beside_file_bytes = nullptr;
};

enum class CheckIn { kGoOn, kCancelled, kOverBudget };

// What the loading thread does after each block, and while it waits for a
// split load's second half: reports progress, then looks at the cancel flag
// and charges the budget for what the load holds by now. `beside_*`: the
// other half's bytes so far (0 when the load is not split).
CheckIn check_in(const LinePipeline& pipeline, const LoadReport& report, const LoadControl& control,
                 std::uint64_t beside_file_bytes, std::uint64_t beside_stream_bytes) {
  if (control.progress)
    control.progress(pipeline.file_bytes_consumed() + beside_file_bytes, pipeline.file_size());
  if (cancelled(control)) return CheckIn::kCancelled;
  if (control.charge &&
      !control.charge(estimate_peak_bytes(report.stream_bytes + beside_stream_bytes) +
                      pipeline.grown_buffer_bytes()))
    return CheckIn::kOverBudget;
  return CheckIn::kGoOn;
}

// Parses every line of every block into `builder`, counting into `report`.
// Stops early on cancellation or when over budget (false); read errors are
// left in the pipeline.
// With a profile, the cycles spent parsing and building are counted apart.
bool read_records(LinePipeline& pipeline, RecordParser& parser, HeapBuilder& builder,
                  LoadReport& report, const LoadControl& control, std::uint64_t& non_blank_lines,
                  LoadProfile* profile, Prefaulter* prefaulter, const Halves& halves = {}) {
  auto beside = [](const std::atomic<std::uint64_t>* bytes) {
    return bytes ? bytes->load(std::memory_order_relaxed) : 0;
  };
  DumpRecord record;
  std::vector<Prefaulter::Range> ranges;
  std::uint64_t parse_cycles = 0, build_cycles = 0, wait_cycles = 0;
  for (;;) {
    const std::uint64_t waited = profile ? LoadProfile::cycles() : 0;
    auto block = pipeline.next();
    if (profile) wait_cycles += LoadProfile::cycles() - waited;
    if (!block) break;
    for (std::uint32_t k = 0; k < block->long_lines_before; ++k) {
      ++report.lines;
      ++report.long_lines;
      ++non_blank_lines;
      note_broken_line(report, report.lines, "line longer than the line cap, skipped");
    }
    const char* const base = block->data();
    const char* const end = base + block->size;
    const char* const buffer_end = base + block->readable();
    auto parse_lines = [&] {
      const char* line = base;
      while (line < end) {
        const char* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
        const char* line_end = newline ? newline : end;
        ++report.lines;
        const std::uint64_t t0 = profile ? LoadProfile::cycles() : 0;
        parser.parse(line, line_end - line, buffer_end - line, record);
        const std::uint64_t t1 = profile ? LoadProfile::cycles() : 0;
        switch (record.kind) {
          case RecordKind::kObject:
            builder.add_object(record, halves.stream_base + block->stream_offset + (line - base));
            break;
          case RecordKind::kRoot:
            ++report.root_records;
            builder.add_root(record);
            break;
          case RecordKind::kShape:
            ++report.shapes;
            builder.add_shape(record);
            break;
          case RecordKind::kBroken:
            note_broken_line(report, report.lines, record.broken_reason);
            break;
          case RecordKind::kBlank:
            break;
        }
        if (record.kind != RecordKind::kBlank) ++non_blank_lines;
        if (profile) {
          const std::uint64_t t2 = LoadProfile::cycles();
          parse_cycles += t1 - t0;
          build_cycles += t2 - t1;
        }
        line = line_end + 1;
      }
    };
    if (block->mapped == nullptr) {
      parse_lines();
    } else if (!read_mapped(base, buffer_end, parse_lines)) {
      pipeline.fail(make_error(ErrorReason::kNotReadable, LinePipeline::kFileCutShort));
      pipeline.recycle(std::move(block));
      break;
    }
    report.stream_bytes = block->stream_offset + block->size;
    pipeline.recycle(std::move(block));
    if (prefaulter) {
      builder.growing_ranges(ranges);
      prefaulter->advance(ranges);
    }
    const CheckIn next = check_in(pipeline, report, control, beside(halves.beside_file_bytes),
                                  beside(halves.beside_stream_bytes));
    if (next == CheckIn::kOverBudget) return false;
    if (next == CheckIn::kCancelled) break;
  }
  if (profile) {
    // The loop's time, shared by the cycles counted on each side (splitting
    // lines, uncounted, is spread over them).
    profile->stop();
    profile->split_last({{"parse (simdjson)", parse_cycles},
                         {"columns, intern", build_cycles},
                         {"wait for the reader", wait_cycles}});
  }
  return true;
}

// The second half of a plain dump split in two, read, parsed and built into
// a builder of its own on a thread of its own, while the loading thread
// does the first half and then absorbs it (HeapBuilder::absorb). Parsing is
// most of a load, and one load otherwise leaves the second core to its
// reader and prefaulter.
class SecondHalf {
 public:
  SecondHalf(std::unique_ptr<ByteSource> source, std::uint64_t begin, const LoadOptions& options,
             const std::atomic<bool>* cancel, std::uint64_t objects_guess,
             std::uint64_t references_guess, bool prefault)
      : begin_(begin),
        builder_(options.mode),
        pipeline_(std::move(source), &stop_, options.block_size, options.max_line_bytes),
        parser_(options.mode) {
    builder_.reserve(objects_guess, references_guess);
    // Its own: a prefaulter serves one builder's columns.
    if (prefault) prefaulter_.emplace();
    // Only the loading thread reports progress and charges the budget: this
    // half tells it how far it has got, and stops on the load's cancel too
    // (the loading thread may be waiting for it by then).
    control_.cancel = &stop_;
    control_.progress = [this, cancel](std::uint64_t done, std::uint64_t) {
      file_bytes_.store(done, std::memory_order_relaxed);
      stream_bytes_.store(report_.stream_bytes, std::memory_order_relaxed);
      if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) stop_.store(true);
    };
    thread_ = std::thread([this] {
      const auto started = std::chrono::steady_clock::now();
      const LoadProfile::Usage at_start =
          LoadProfile::enabled() ? LoadProfile::thread_usage() : LoadProfile::Usage{};
      try {
        read_records(pipeline_, parser_, builder_, report_, control_, non_blank_lines_, nullptr,
                     prefaulter_ ? &*prefaulter_ : nullptr, Halves{begin_, nullptr, nullptr});
      } catch (...) {
        failure_ = std::current_exception();
      }
      if (LoadProfile::enabled()) {
        const LoadProfile::Usage at_end = LoadProfile::thread_usage();
        seconds_ =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        usage_ = {at_end.faults - at_start.faults, at_end.kernel_seconds - at_start.kernel_seconds};
      }
      std::lock_guard lock(mutex_);
      finished_ = true;
      ended_.notify_all();
    });
  }
  ~SecondHalf() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  SecondHalf(const SecondHalf&) = delete;
  SecondHalf& operator=(const SecondHalf&) = delete;

  Halves beside() const { return Halves{0, &stream_bytes_, &file_bytes_}; }

  // Waits for the half to be read, calling `tick` every kTick meanwhile with
  // its file and stream bytes so far: the loading thread goes on reporting
  // progress and charging the budget while it waits (a load of ~150 MB can
  // spend most of its life here). `tick` returns false to stop the half.
  void wait(const std::function<bool(std::uint64_t file_bytes, std::uint64_t stream_bytes)>& tick) {
    constexpr std::chrono::milliseconds kTick{50};
    std::unique_lock lock(mutex_);
    while (!ended_.wait_for(lock, kTick, [this] { return finished_; })) {
      lock.unlock();
      if (!tick(file_bytes_.load(std::memory_order_relaxed),
                stream_bytes_.load(std::memory_order_relaxed)))
        stop_.store(true);
      lock.lock();
    }
  }

  // Once wait() has returned: its thread's time, faults and kernel time
  // (HEAPLEAK_PROFILE only), for the profile to show beside the steps.
  void profile_into(LoadProfile& profile) const {
    profile.beside("second half", seconds_, usage_.faults, usage_.kernel_seconds);
  }

  // Once wait() has returned: what the half threw is thrown here. Then adds
  // it to the first half's `builder` and `report`, or gives its read error.
  std::optional<Error> join_into(HeapBuilder& builder, LoadReport& report,
                                 std::uint64_t& non_blank_lines) {
    thread_.join();
    if (failure_) std::rethrow_exception(failure_);
    if (auto error = pipeline_.error()) return error;
    // Its lines follow the first half's: numbered after them.
    for (std::size_t k = 0; k < report_.first_broken_lines.size() &&
                            report.first_broken_lines.size() < LoadReport::kMaxBrokenListed;
         ++k) {
      report.first_broken_lines.push_back(report.lines + report_.first_broken_lines[k]);
      report.first_broken_reasons.push_back(report_.first_broken_reasons[k]);
    }
    report.lines += report_.lines;
    report.broken_lines += report_.broken_lines;
    report.long_lines += report_.long_lines;
    report.root_records += report_.root_records;
    report.shapes += report_.shapes;
    report.stream_bytes += report_.stream_bytes;
    report.ends_mid_line = pipeline_.ends_mid_line();
    non_blank_lines += non_blank_lines_;
    builder.absorb(std::move(builder_));
    return std::nullopt;
  }

 private:
  const std::uint64_t begin_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> stream_bytes_{0};
  std::atomic<std::uint64_t> file_bytes_{0};
  HeapBuilder builder_;
  LinePipeline pipeline_;
  RecordParser parser_;
  LoadControl control_;
  LoadReport report_;
  std::uint64_t non_blank_lines_ = 0;
  std::exception_ptr failure_;
  std::optional<Prefaulter> prefaulter_;
  std::mutex mutex_;
  std::condition_variable ended_;
  bool finished_ = false;  // under mutex_: the thread is about to end
  double seconds_ = 0;     // set by the thread before it ends (profiles only)
  LoadProfile::Usage usage_;
  std::thread thread_;
};

}  // namespace

std::uint64_t split_point(const std::string& path, std::uint64_t file_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> window(std::size_t{1} << 20);
  in.seekg(static_cast<std::streamoff>(file_bytes / 2));
  in.read(window.data(), static_cast<std::streamsize>(window.size()));
  const auto got = static_cast<std::size_t>(in.gcount());
  const char* newline = static_cast<const char*>(std::memchr(window.data(), '\n', got));
  if (newline == nullptr) return 0;
  const std::uint64_t split =
      file_bytes / 2 + static_cast<std::uint64_t>(newline - window.data()) + 1;
  return split < file_bytes ? split : 0;
}

std::uint64_t estimate_peak_bytes(std::uint64_t json_bytes) {
  return json_bytes / 2 + (std::uint64_t{16} << 20);
}

std::optional<Error> no_heap_records(const std::string& path, std::uint64_t objects,
                                     const LoadReport& report, std::uint64_t non_blank_lines) {
  if (objects != 0 || report.root_records != 0 || report.shapes != 0) return std::nullopt;
  if (report.gzip_truncated) {
    return Error{ErrorReason::kCorruptInput,
                 path + ": the gzip stream is cut short before any heap record"};
  }
  if (non_blank_lines == 0)
    return Error{ErrorReason::kNotAHeapDump, path + ": the file is empty, not a heap dump"};
  return Error{ErrorReason::kNotAHeapDump,
               path + ": not a heap dump (no line is an ObjectSpace.dump_all record; " +
                   std::to_string(report.broken_lines) + " unparsable lines)"};
}

Result<std::shared_ptr<const Heap>> load_heap(const std::string& path, const LoadOptions& options,
                                              const LoadControl& control) {
  const auto started = std::chrono::steady_clock::now();
  std::unique_ptr<LoadProfile> profile;
  if (LoadProfile::enabled()) {
    profile = std::make_unique<LoadProfile>();
    profile->step("open");
  }
  auto source = open_byte_source(path);
  if (!source) return source.error();

  LoadReport report;
  report.path = path;
  report.file_bytes = (*source)->file_size();
  report.gzip = (*source)->compressed();
  report.identity = (*source)->identity();
  report.cache = options.cache;
  report.cache_warnings = options.cache_warnings;

  // Faulting the columns in on another core pays off once a dump is large
  // enough for its fresh memory to matter (tens of MiB of columns).
  // HEAPLEAK_NO_PREFAULT=1 turns it off, for bench/run.sh to show what it saves.
  const bool prefault = report.file_bytes >= options.prefault_from_bytes &&
                        std::getenv("HEAPLEAK_NO_PREFAULT") == nullptr;
  // The budget's first look, before the load reserves or reads anything: a
  // load refused now has taken no memory (control.charge's owner may judge
  // more than bytes: heapleakd without --max-memory, core/loading/load_memory_guard.h).
  if (control.charge && !control.charge(estimate_peak_bytes(0)))
    return make_error(ErrorReason::kOverBudget, path + ": the load does not fit the memory budget");
  HeapBuilder builder(options.mode);
  // Records are rarely shorter than ~80 bytes; gzip dumps inflate ~8x.
  const std::uint64_t stream_guess = report.file_bytes * (report.gzip ? 8 : 1);
  builder.reserve(stream_guess / 80, stream_guess / 40);
  // A large plain file is read in two halves, the second on a thread of its
  // own (gzip cannot start mid-stream).
  std::optional<SecondHalf> second_half;
  if (options.split_from_bytes != UINT64_MAX && !report.gzip &&
      report.file_bytes >= options.split_from_bytes && std::thread::hardware_concurrency() > 1) {
    if (const std::uint64_t split = split_point(path, report.file_bytes)) {
      // Opened again, and only used if it is the same file.
      auto rest = open_byte_source(path);
      if (rest && (*rest)->identity() == report.identity &&
          (*rest)->restrict_to(split, report.file_bytes) && (*source)->restrict_to(0, split)) {
        second_half.emplace(std::move(*rest), split, options, control.cancel,
                            (stream_guess - split) / 80, (stream_guess - split) / 40, prefault);
      }
    }
  }
  // A load that splits runs alone: its finish steps may take both cores too.
  const bool alone = second_half.has_value();
  std::uint64_t non_blank_lines = 0;
  std::optional<Prefaulter> prefaulter;
  if (prefault) prefaulter.emplace();
  {
    // The pipeline (its reader thread and block buffers) ends before
    // finish(): the pages it frees are reused by the build's arrays instead
    // of fresh ones, and do not add to the peak.
    LinePipeline pipeline(std::move(*source), control.cancel, options.block_size,
                          options.max_line_bytes);
    RecordParser parser(options.mode);
    if (profile) profile->step("read+parse+build");
    auto over_budget = [&] {
      return make_error(ErrorReason::kOverBudget,
                        path + ": the load outgrew the --max-memory budget after " +
                            std::to_string(report.stream_bytes >> 20) + " MiB of " +
                            (report.gzip ? "inflated " : "") + "dump; unload a heap or raise it");
    };
    if (!read_records(pipeline, parser, builder, report, control, non_blank_lines, profile.get(),
                      prefaulter ? &*prefaulter : nullptr,
                      second_half ? second_half->beside() : Halves{})) {
      return over_budget();
    }
    if (cancelled(control))
      return make_error(ErrorReason::kCancelled, "load of " + path + " cancelled");
    if (auto error = pipeline.error()) {
      return make_error(error->reason, path + ": " + error->message);
    }
    report.ends_mid_line = pipeline.ends_mid_line();
    report.gzip_truncated = pipeline.truncated();
    if (second_half) {
      if (profile) profile->step("wait, second half");
      CheckIn waited = CheckIn::kGoOn;
      second_half->wait([&](std::uint64_t file_bytes, std::uint64_t stream_bytes) {
        waited = check_in(pipeline, report, control, file_bytes, stream_bytes);
        return waited == CheckIn::kGoOn;
      });
      if (waited == CheckIn::kOverBudget) return over_budget();
      if (profile) {
        second_half->profile_into(*profile);
        profile->step("absorb second half");
      }
      auto error = second_half->join_into(builder, report, non_blank_lines);
      second_half.reset();
      if (cancelled(control))
        return make_error(ErrorReason::kCancelled, "load of " + path + " cancelled");
      if (error) return make_error(error->reason, path + ": " + error->message);
      // The whole dump, charged once both halves are in (the first half's
      // last charge may have come before the second half's end).
      if (control.charge &&
          !control.charge(estimate_peak_bytes(report.stream_bytes) + pipeline.grown_buffer_bytes()))
        return over_budget();
    }
    // Record offsets are only kept for full heaps; so are the access points.
    if (options.mode == LoadMode::kFull) builder.set_gzip_index(pipeline.access_index());
    if (profile) profile->step("pipeline end");
  }
  if (auto none = no_heap_records(path, builder.object_count(), report, non_blank_lines))
    return *none;
  builder.release_unused_pages();
  auto heap = builder.finish(std::move(report), started, profile.get(),
                             prefaulter ? &*prefaulter : nullptr, alone);
  if (profile) {
    profile->stop();
    profile->print(path);
  }
  return heap;
}

}  // namespace heapleak
