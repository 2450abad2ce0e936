// Where the one-shot CLI writes (stdout or `-o FILE`), how it loads heaps
// with a message on failure, and how errors map to exit codes (the table
// both CLIs share: results/product/exit_codes.h, docs/exit-codes.md).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clients/cli/cli_args.h"
#include "core/base/error.h"
#include "core/heap/heap.h"
#include "core/heap/object_key.h"
#include "core/images/heap_cache.h"
#include "core/loading/loader.h"
#include "engine/explain.h"
#include "engine/load_plan.h"
#include "results/product/exit_codes.h"
#include "results/product/version.h"
#include "results/text/text_doc.h"

namespace heapleak::cli {

constexpr const char* kHeapleakVersion = kVersion;

int exit_code_for(ErrorReason reason);
// Prints "heapleak: MESSAGE" on stderr and returns the matching exit code.
int report_error(const Error& error);

// Writes `text` to the -o file when given, else stdout. Returns false (after
// printing why) when the file cannot be written: the command then exits
// kExitCannotWrite (check: kExitGateError).
bool write_output(const Args& args, const std::string& text);
std::string to_json_text(const boost::json::value& value);
// A rendered result (results/text): its warnings on stderr, its text to the
// -o file or stdout. Returns write_output's answer.
bool write_doc(const Args& args, const text::Doc& doc);
// --json, or --format json: every command that prints JSON takes both
// (--format text is the default; another --format is a UsageError). stats and
// root, whose --format has more values, check theirs first.
bool json_wanted(const Args& args);

// `--by class|site|generation` (default class); throws UsageError.
GroupBy group_by_option(const Args& args);

// The heap cache every load goes through (set once by main from --no-cache,
// --cache-dir, --cache-max-bytes and the environment). The images of the
// heaps this run parses are written on a background thread as each load ends;
// write_pending_images() (main, after the answer) waits for the last one,
// then keeps the analyses computed on every heap bound to an image.
void configure_cache(const CacheOptions& options);
const HeapCache& cli_cache();
void write_pending_images();
// A dump this run streamed rather than loaded (clients/cli/diff_loads.h):
// once the answer is out and the run's heaps are freed, write_pending_images
// loads it identity-only, alone, and writes its image, so the next run maps
// it. Nothing when the cache is off or unsafe.
void write_image_later(const std::string& path);

// What --max-memory set: the bytes a run without the cache may hold; nullopt
// (the default) is the memory available (core/base/memory_headroom.h). A run that
// cannot fit is refused before its first load (core/loading/memory_fit.h).
void configure_memory_cap(std::optional<std::uint64_t> max_bytes);

// Runs a load plan (engine/load_plan.h) on this process's threads, at most
// plan.at_once at a time (each load's transient arrays, ~12 bytes per
// object, are held at once) and as many as fit in the memory left; the
// target's analyses follow its load on its thread. On the first failure
// prints the error, sets `exit_code` and returns an empty list; warnings and
// errors are printed in the order of the paths.
// `broken_lines`: false for a dump read a second time (streamed first:
// clients/cli/diff_loads.h), whose broken lines were told already.
std::vector<std::shared_ptr<const Heap>> load_planned(const engine::LoadPlan& plan, int& exit_code,
                                                      std::vector<std::string>* errors = nullptr,
                                                      bool broken_lines = true);

// One dump loaded alone by load_planned, a large plain dump read in two
// halves at once (kSplitWhenAloneFrom): a command's only load, or one of a
// diff's loaded one after the other. Null on a failure, which is printed
// (`exit_code`, `errors`) as load_planned does.
std::shared_ptr<const Heap> load_alone(const std::string& path, LoadMode mode, int& exit_code,
                                       std::vector<std::string>* errors = nullptr,
                                       bool broken_lines = true);

// explain's and check's dump k of `paths` read again in full when the engine
// asks (a compaction between B and C: engine/explain.h's ReadWithReferences),
// through the same loader and cache; a failed read is printed and answered
// with null (the engine says what it cost).
engine::ReadWithReferences reread_with_references(const std::vector<std::string>& paths);

// Warns on stderr about broken lines and missing references of a loaded heap.
void warn_about_load(const Heap& heap);
// The same of a dump streamed rather than loaded (clients/cli/diff_loads.h).
void warn_about_load(const LoadReport& report);

}  // namespace heapleak::cli
