// `heapleak cache list|clear`: what the cache of parsed heaps holds, and
// deleting it. The images themselves are core/images/heap_cache.h's.
#include <iostream>
#include <sstream>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/heap/analysis_cost.h"
#include "results/cache_json.h"
#include "results/text/human_bytes.h"
#include "results/text/render.h"

namespace heapleak::cli {
using text::human_bytes;
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
  if (const auto unsafe = cache.unsafe())
    std::cerr << "heapleak: cache: " << *unsafe << ": refusing to use it\n";
  const bool as_json = args.has("--json");
  if (args.positional[0] == "clear") {
    const auto json = results::cache_clear_json(cache, cache.clear());
    return (as_json ? write_output(args, to_json_text(json))
                    : write_doc(args, text::cache_clear_text(json)))
               ? kExitOk
               : kExitCannotWrite;
  }
  // The same JSON and text as heapleak-client's cache list (heapleakd's cacheList).
  const auto json = results::cache_list_json(cache, cache.list());
  return (as_json ? write_output(args, to_json_text(json))
                  : write_doc(args, text::cache_list_text(json)))
             ? kExitOk
             : kExitCannotWrite;
}

}  // namespace heapleak::cli
