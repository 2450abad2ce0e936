#include "results/product/exit_codes.h"

namespace heapleak {

namespace {

struct ReasonCode {
  std::string_view reason;
  int code;
};

constexpr ReasonCode kReasons[] = {
    {"noAnswer", kExitNoAnswer},
    {"fileNotFound", kExitFileNotFound},
    {"unknownAddress", kExitUnknownAddress},
    {"corruptInput", kExitCorruptInput},
    {"unknownHeap", kExitUnknownHeap},
    {"overBudget", kExitOverBudget},
    {"invalidArgument", kExitInvalidArgument},
    {"notReadable", kExitNotReadable},
    {"notAHeapDump", kExitNotAHeapDump},
    {"notWritable", kExitCannotWrite},
    {"cancelled", kExitCancelled},
};

}  // namespace

int exit_code_for_reason(std::string_view reason, int otherwise) {
  for (const auto& entry : kReasons) {
    if (entry.reason == reason) return entry.code;
  }
  return otherwise;
}

std::string exit_code_table() {
  return R"(exit codes:
    0  ok; check: within budget
    1  no answer (noAnswer: no common retainer, no path from a root); heapleak: internal error
    2  usage error: the command line does not parse (rpc: input that is not JSON-RPC)
    3  file not found (fileNotFound): a dump, check's --baseline
    4  unknown address (unknownAddress)
    5  check: the leak gate failed (a new leak, a budget passed, a known leak grew)
    6  check: no verdict (a dump it cannot read, dumps not one series, a report or
       baseline it cannot write)
    7  corrupt input (corruptInput): a damaged gzip, a malformed --baseline
    8  unknown heap (unknownHeap)
    9  over the memory budget (overBudget)
   10  invalid argument (invalidArgument: not an address, an unknown grouping; -32602)
   11  Graphviz `dot` is not installed (--format svg|png)
   12  heapleakd answered another error, or a reply that is not JSON-RPC
   13  cannot reach heapleakd (not found, failed to start, connection lost), or for
       capture the Ruby process
   14  not readable (notReadable): permission denied, a directory, a FIFO, a device
   15  not a heap dump (notAHeapDump)
   16  the output cannot be written (-o FILE, stdout, Graphviz's rendering)
  130  cancelled with Ctrl-C (the daemon answered -32800)
heapleak and heapleak-client share this table: docs/exit-codes.md
)";
}

}  // namespace heapleak
