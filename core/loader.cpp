#include "core/loader.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "core/heap_builder.h"
#include "core/line_pipeline.h"
#include "core/load_profile.h"
#include "core/prefaulter.h"
#include "core/record_parser.h"

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

// Parses every line of every block into `builder`, counting into `report`.
// Stops early on cancellation or when over budget (false); read errors are
// left in the pipeline.
// With a profile, the cycles spent parsing and building are counted apart.
bool read_records(LinePipeline& pipeline, RecordParser& parser, HeapBuilder& builder,
                  LoadReport& report, const LoadControl& control, std::uint64_t& non_blank_lines,
                  LoadProfile* profile, Prefaulter* prefaulter) {
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
    const char* const base = block->buffer.data();
    const char* const end = base + block->size;
    const char* const buffer_end = base + block->buffer.size();
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
          builder.add_object(record, block->stream_offset + (line - base));
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
    report.stream_bytes = block->stream_offset + block->size;
    pipeline.recycle(std::move(block));
    if (prefaulter) {
      builder.growing_ranges(ranges);
      prefaulter->advance(ranges);
    }
    if (control.progress) control.progress(pipeline.file_bytes_consumed(), pipeline.file_size());
    if (cancelled(control)) break;
    if (control.charge &&
        !control.charge(estimate_peak_bytes(report.stream_bytes) + pipeline.grown_buffer_bytes()))
      return false;
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

}  // namespace

std::uint64_t estimate_peak_bytes(std::uint64_t json_bytes) {
  return json_bytes / 2 + (std::uint64_t{16} << 20);
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

  HeapBuilder builder(options.mode);
  {
    // Records are rarely shorter than ~80 bytes; gzip dumps inflate ~8x.
    const std::uint64_t stream_guess = report.file_bytes * (report.gzip ? 8 : 1);
    builder.reserve(stream_guess / 80, stream_guess / 40);
  }
  std::uint64_t non_blank_lines = 0;
  // Faulting the columns in on another core pays off once a dump is large
  // enough for its fresh memory to matter (tens of MiB of columns).
  std::optional<Prefaulter> prefaulter;
  // HEAPLEAK_NO_PREFAULT=1 turns it off, for bench/run.sh to show what it saves.
  if (report.file_bytes >= options.prefault_from_bytes &&
      std::getenv("HEAPLEAK_NO_PREFAULT") == nullptr)
    prefaulter.emplace();
  {
    // The pipeline (its reader thread and block buffers) ends before
    // finish(): the pages it frees are reused by the build's arrays instead
    // of fresh ones, and do not add to the peak.
    LinePipeline pipeline(std::move(*source), control.cancel, options.block_size,
                          options.max_line_bytes);
    RecordParser parser(options.mode);
    if (profile) profile->step("read+parse+build");
    if (!read_records(pipeline, parser, builder, report, control, non_blank_lines, profile.get(),
                      prefaulter ? &*prefaulter : nullptr)) {
      return make_error(ErrorReason::kOverBudget,
                        path + ": the load outgrew the --max-memory budget after " +
                            std::to_string(report.stream_bytes >> 20) + " MiB of " +
                            (report.gzip ? "inflated " : "") + "dump; unload a heap or raise it");
    }
    if (cancelled(control))
      return make_error(ErrorReason::kCancelled, "load of " + path + " cancelled");
    if (auto error = pipeline.error()) {
      return make_error(error->reason, path + ": " + error->message);
    }
    report.ends_mid_line = pipeline.ends_mid_line();
    report.gzip_truncated = pipeline.truncated();
    // Record offsets are only kept for full heaps; so are the access points.
    if (options.mode == LoadMode::kFull) builder.set_gzip_index(pipeline.access_index());
    if (profile) profile->step("pipeline end");
  }
  if (builder.object_count() == 0 && report.root_records == 0 && report.shapes == 0) {
    if (report.gzip_truncated) {
      return make_error(ErrorReason::kCorruptInput,
                        path + ": the gzip stream is cut short before any heap record");
    }
    if (non_blank_lines == 0) {
      return make_error(ErrorReason::kNotAHeapDump, path + ": the file is empty, not a heap dump");
    }
    return make_error(ErrorReason::kNotAHeapDump,
                      path + ": not a heap dump (no line is an ObjectSpace.dump_all record; " +
                          std::to_string(report.broken_lines) + " unparsable lines)");
  }
  builder.release_unused_pages();
  auto heap = builder.finish(std::move(report), started, profile.get(),
                             prefaulter ? &*prefaulter : nullptr);
  if (profile) {
    profile->stop();
    profile->print(path);
  }
  return heap;
}

}  // namespace heapleak
