#include "clients/client/usage.h"

#include <map>

#include "clients/client/exit_codes.h"

namespace heapleak::client {

namespace {

constexpr const char* kCommon = R"(
common options:
  --json              print the daemon's result as JSON, exactly as it came
  --socket PATH       the daemon's unix socket (default: $XDG_RUNTIME_DIR/heapleak/heapleakd.sock,
                      or /tmp/heapleak-UID/heapleakd.sock); started there if nothing listens
  --idle-timeout SECS an auto-started daemon exits after SECS without clients (default 600)
  --spawn             use a private `heapleakd --stdio` for this command only
)";

const std::map<std::string, std::string>& pages() {
  static const std::map<std::string, std::string> texts = {
      {"load", R"(usage: heapleak-client load FILE [--name NAME] [--json]

Loads a heap dump (plain or gzipped ObjectSpace.dump_all output) into the
daemon, where it stays for later commands. Shows a progress bar on a terminal;
Ctrl-C cancels the load and leaves nothing half-loaded.
  --name NAME   the heap's name (default: the file name; made unique)
)"},
      {"list", R"(usage: heapleak-client list [--json]

Lists the heaps the daemon holds: id, name, objects, memory, load time, path.
)"},
      {"unload", R"(usage: heapleak-client unload HEAP [--json]

Drops a heap from the daemon. HEAP is an id (h1), a name, or the loaded file's path.
)"},
      {"stats",
       R"(usage: heapleak-client stats A B [C] [--by class|site|generation] [--limit N] [--samples N] [--json]

The leak: objects in B that were not in A (and are still alive in C), grouped.
A, B and C are heap ids, names or dump paths; a path not loaded yet is loaded
first, one already loaded is reused.
  --by KEY       group by class (default), site (needs allocation tracing) or generation
  --limit N      groups to show (default 20 in the table, all with --json; 0: all)
  --samples N    sample addresses kept per group (default 50 in the table, every
                 address with --json; 0: none)
)"},
      {"root",
       R"(usage: heapleak-client root HEAP ADDR... [-o FILE] [--format dot|svg|png] [--min-samples K] [--max-visits N] [--json]

The nearest object that holds all the sample objects (the leaking cache,
global or ivar), as a Graphviz graph. Without -o the graph goes to stdout and
a one-line summary to stderr; with -o FILE the summary goes to stdout.
  -o FILE            write the graph (or the --json result) to FILE
  --format FORMAT    dot (default), or svg/png rendered with Graphviz `dot`
                     (exit 11 with install instructions when it is missing)
  --min-samples K    accept a retainer that holds only K of the samples
  --max-visits N     give up after following N references (default 20,000,000;
                     --max-nodes is its old name)
Exit 1 when no common retainer is found (the graph is still written).
)"},
      {"path", R"(usage: heapleak-client path HEAP ADDR [--json]

The shortest path from a GC root to the object at ADDR.
)"},
      {"explain",
       R"(usage: heapleak-client explain A B [C] [--by class|site|generation] [--limit N] [--json]
       heapleak-client explain D1 D2 D3 D4 ... DN [options]

The answer to start with: one row per leak. The objects new in B and still
alive in C, clustered by their holder (the object alive in A, B and C whose
references gained them), each with how Ruby reaches the holder, its growth
A -> B -> C, the leaked objects by class (and allocation site when traced)
and the bytes they retain, ranked by bytes retained; what is probably not a
leak (finalizer tables, VM internals, containers that stopped growing) is
listed apart with why. A, B and C are heap ids, names or dump paths (loaded
first when new); holders are found in B.
Four dumps or more, oldest first, are a series: A = D1, B = D(N-1), C = DN,
each row's holder read in every dump ("length grew in 4 of 4 intervals:
120 -> 240 -> 360 -> 480 -> 600"), the rows that grew in every interval
first.
  --by KEY    group each row's objects by class (default), site (needs
              allocation tracing) or generation
  --limit N   show the N largest leaks and noise rows (default 10 in the
              text, 20 with --json; 0: all)
The first ownership command on a heap builds its dominator tree (seconds on
a multi-gigabyte heap); later ones reuse it.
)"},
      {"report",
       R"(usage: heapleak-client report A B [C] [--by class|site|generation] [--limit N] [-o FILE] [--json]
       heapleak-client report D1 D2 D3 D4 ... DN [options]

explain's rows as the one self-contained HTML page `heapleak report` writes
(the daemon's `report`): the dumps, a card per leak in explain's words with
its growth chart and retainer graph, a treemap of retained bytes, the rows
probably not leaks folded away. It opens from disk and fetches nothing.
  -o FILE     write the page to FILE (else stdout)
  --by, --limit  as explain's
  --json      the daemon's result ({html, bytes, leakCount, ...}) as it came
)"},
      {"owner",
       R"(usage: heapleak-client owner HEAP ADDR... [-o FILE] [--format dot|svg|png] [--json]

The owner of the objects: the nearest object every path from a GC root to
them passes through (freeing it frees them all), the bytes it retains, its
own path from a root, and the merged shortest paths from the roots to the
objects, grouped by class (as an indented tree).
  -o FILE            write the merged paths as a graph (or the --json result) to FILE
  --format FORMAT    print the merged paths as a graph: dot (default with -o),
                     or svg/png rendered with Graphviz `dot` (exit 11 when missing);
                     without -o the graph goes to stdout and a summary to stderr
Exit 1 when none of the objects is reachable from a GC root.
)"},
      {"top", R"(usage: heapleak-client top HEAP [--by object|class] [--limit N] [--json]

The objects that keep the most memory alive (retained size: their own memsize
plus everything only they hold), or the classes (--by class), then the
strings stored many times over (the 5 that waste most).
  --by KEY     object (default) or class
  --limit N    entries to show (default 20; 0: all)
--json prints topRetainers' result with duplicateStrings' `strings` added as
`duplicateStrings`.
)"},
      {"retained", R"(usage: heapleak-client retained HEAP ADDR [--json]

One object's place in the dominator tree: the bytes freed with it (retained
size), whether a GC root reaches it, and its immediate dominator (the
nearest object every path from a root to it passes through; ROOT when only
the roots do).
)"},
      {"tree",
       R"(usage: heapleak-client tree HEAP [ADDR] [--depth N] [--limit N] [--min-bytes N] [--json]

The top of the dominator tree (dominatorTree): from the GC roots, or from
ADDR, each object indented under the one whose release would free it, with
the bytes it keeps alive (retained), biggest first; "... N more" counts the
children not listed.
  --depth N        levels below the start (1-8, default 2)
  --limit N        children listed per object (default 10; 0: all)
  --min-bytes N    leave out children retaining less than N bytes
)"},
      {"inspect", R"(usage: heapleak-client inspect HEAP ADDR [--json]

One object: type, class, size, allocation site, edge counts and its record
as it appears in the dump.
)"},
      {"referrers", R"(usage: heapleak-client referrers HEAP ADDR [--offset N] [--limit N] [--json]

The objects that reference ADDR, a page at a time (default: the first 100).
)"},
      {"references",
       R"(usage: heapleak-client references HEAP ADDR [--offset N] [--limit N] [--json]

The objects ADDR references, a page at a time (default: the first 100).
)"},
      {"cache", R"(usage: heapleak-client cache list|clear [--json]

The daemon's cache of parsed dumps: images it reopens instead of parsing
(`heapleakd --cache-dir`, default $XDG_CACHE_HOME/heapleak). `list` shows
each image's dump, load mode, size, last use and objects, most recent first;
`clear` deletes them all (the next load of each dump parses it again).
)"},
      {"stop", R"(usage: heapleak-client stop [--socket PATH] [--json]

Stops the resident daemon (stopDaemon); every client's heaps go with it.
Returns once the daemon has exited (exit 12 if it still runs after 60 s), so
the next command starts a new one. Never starts one: with nothing running it
says so and exits 0.
)"},
      {"rpc", R"(usage: heapleak-client rpc [FILE|-] [--notifications] [--socket PATH | --spawn]

A scripted session: reads JSON-RPC messages from FILE or stdin (one per line,
or Content-Length framed), sends them one at a time, waits for each request's
reply and prints every response as one JSON line. Sends `initialize` itself
unless the input does. loadHeap's relative paths are made absolute against
the current directory. Ctrl-C cancels the request in flight.
  --notifications   also print the daemon's notifications ($/progress ...)
Exit 0 when every request was answered (error replies included: they are in
the output), 2 when the input is not JSON-RPC, 13 when the daemon is lost.
)"},
  };
  return texts;
}

}  // namespace

std::string overview_usage() {
  return std::string(R"(heapleak-client - ask a running heapleakd why a Ruby process leaks memory

usage: heapleak-client COMMAND [ARGS] [options]

  load FILE [--name N]           load a heap dump into the daemon
  list                           the loaded heaps
  unload HEAP                    drop a heap
  stats A B [C]                  objects new in B (still alive in C), grouped
  root HEAP ADDR...              the common retainer of the samples, as a graph
  path HEAP ADDR                 the shortest path from a GC root
  explain A B [C] | D1..DN       one row per leak: holder, growth, reach, ranked by bytes retained
  report A B [C] [-o FILE]       explain's rows as one self-contained HTML page
  owner HEAP ADDR...             the object that owns them all, its path, the merged root paths
  top HEAP                       what keeps the most memory alive; duplicate strings
  retained HEAP ADDR             the bytes freed with an object, and its dominator
  tree HEAP [ADDR]               the dominator tree from the GC roots (or ADDR), biggest first
  inspect HEAP ADDR              one object and its dump record
  referrers HEAP ADDR            who references the object (paged)
  references HEAP ADDR           what the object references (paged)
  stop                           stop the resident daemon
  cache list|clear               the daemon's cache of parsed dumps, or delete it
  rpc [FILE|-]                   a scripted JSON-RPC session, responses as JSON lines

HEAP is a heap id (h1), a name, or a dump path (loaded on first use).
The first command starts a resident heapleakd (found next to this program, via
$HEAPLEAKD, or on PATH) that later commands reuse. `heapleak-client COMMAND
--help` tells more; `heapleak-client --version` prints the version. Tables fit
the terminal (or $COLUMNS); NO_COLOR turns colour off.
)") + kCommon +
         "\n" + exit_code_table();
}

std::string command_usage(const std::string& command) {
  auto it = pages().find(command);
  return it == pages().end() ? std::string() : it->second + kCommon;
}

}  // namespace heapleak::client
