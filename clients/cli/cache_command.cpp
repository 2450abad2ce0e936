// `heapleak cache list|clear`: what the cache of parsed heaps holds, and
// deleting it. The images themselves are core/heap_cache.h's.
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/common/human_bytes.h"
#include "core/analysis_cost.h"
#include "results/cache_json.h"

namespace heapleak::cli {
using clients::human_bytes;
namespace {

constexpr const char* kHelp = R"(usage: heapleak cache list|clear [--json] [--cache-dir DIR]

list   every image: the dump it was parsed from, its load mode, size, when it
       was last used and how many objects it holds (most recent first), and
       the analyses kept with it (root paths, dominator tree)
clear  deletes every image and its analyses (the next load of each dump
       parses it again)

Images live in --cache-dir, else $HEAPLEAK_CACHE_DIR, else
$XDG_CACHE_HOME/heapleak, else ~/.cache/heapleak.
)";

}  // namespace

int run_cache(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--json", "--help", "-h"}, {"-o"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() != 1 ||
      (args.positional[0] != "list" && args.positional[0] != "clear"))
    throw UsageError{"expects list or clear"};
  const HeapCache& cache = cli_cache();
  const auto unsafe = cache.unsafe();
  if (unsafe) std::cerr << "heapleak: cache: " << *unsafe << ": refusing to use it\n";
  std::ostringstream out;
  if (args.positional[0] == "clear") {
    const auto cleared = cache.clear();
    if (args.has("--json"))
      return write_output(args, to_json_text(results::cache_clear_json(cache, cleared)))
                 ? kExitOk
                 : kExitInput;
    out << "deleted " << cleared.images << (cleared.images == 1 ? " image" : " images") << ", "
        << human_bytes(cleared.bytes) << ", from " << cache.dir() << "\n";
    return write_output(args, out.str()) ? kExitOk : kExitInput;
  }
  const auto entries = cache.list();
  if (args.has("--json"))
    return write_output(args, to_json_text(results::cache_list_json(cache, entries))) ? kExitOk
                                                                                      : kExitInput;
  std::uint64_t total = 0;
  for (const auto& entry : entries) total += entry.bytes + entry.analyses_bytes;
  out << cache.dir() << ": " << entries.size() << (entries.size() == 1 ? " image, " : " images, ")
      << human_bytes(total) << " of " << human_bytes(cache.max_bytes())
      << (cache.enabled() && !unsafe ? "" : " (cache off)") << "\n";
  for (const auto& entry : entries) {
    out << "  " << results::utc_time_text(entry.last_used) << "  " << human_bytes(entry.bytes)
        << "  ";
    if (entry.readable) {
      out << entry.objects << " objects  "
          << (entry.mode == LoadMode::kFull ? "full" : "identity-only") << "  " << entry.dump_path;
      if (entry.analyses != 0) {
        const bool both = entry.analyses == (kRootPathsAnalysis | kDominatorsAnalysis);
        out << "\n    analyses kept (" << human_bytes(entry.analyses_bytes)
            << "): " << (entry.analyses & kRootPathsAnalysis ? "root paths" : "")
            << (both ? ", " : "") << (entry.analyses & kDominatorsAnalysis ? "dominator tree" : "");
      }
    } else if (entry.partial) {
      out << "partial (being written, or left by a writer that was killed; deleted when it is "
             "gone)";
    } else {
      out << "unreadable (damaged or another version; rebuilt on next use)";
    }
    out << "\n    " << entry.image_path << "\n";
  }
  return write_output(args, out.str()) ? kExitOk : kExitInput;
}

}  // namespace heapleak::cli
