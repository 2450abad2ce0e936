// The one exit-code table of heapleak and heapleak-client (docs/exit-codes.md):
// a failure has one number in both CLIs. Domain failures are found by their
// reason name (core/error.h's reason_name, the daemon's data.reason), so the
// one-shot CLI and the protocol-only client map the same failure alike.
// Numbers never change meaning. In namespace heapleak: both CLIs use them bare.
#pragma once

#include <string>
#include <string_view>

namespace heapleak {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNoAnswer = 1;        // noAnswer; heapleak: also an internal error
inline constexpr int kExitUsage = 2;           // the command line does not parse
inline constexpr int kExitFileNotFound = 3;    // fileNotFound: a dump, a baseline
inline constexpr int kExitUnknownAddress = 4;  // unknownAddress
inline constexpr int kExitGateFailed = 5;      // heapleak check: a new leak, a budget passed
// heapleak check gave no verdict: a dump it cannot judge (any load failure),
// dumps not one series, or its report or baseline could not be written.
inline constexpr int kExitGateError = 6;
inline constexpr int kExitCorruptInput = 7;      // corruptInput: a damaged gzip, a bad baseline
inline constexpr int kExitUnknownHeap = 8;       // unknownHeap (heapleak-client)
inline constexpr int kExitOverBudget = 9;        // overBudget
inline constexpr int kExitInvalidArgument = 10;  // invalidArgument, or -32602 invalid params
inline constexpr int kExitNoGraphviz = 11;       // --format svg|png without Graphviz `dot`
inline constexpr int kExitDaemonError = 12;      // heapleakd's other errors, a broken reply
inline constexpr int kExitUnreachable = 13;      // cannot reach heapleakd, or capture's process
inline constexpr int kExitNotReadable = 14;      // notReadable: permission, directory, FIFO
inline constexpr int kExitNotAHeapDump = 15;     // notAHeapDump
inline constexpr int kExitCannotWrite = 16;      // notWritable: -o FILE, stdout, Graphviz output
inline constexpr int kExitCancelled = 130;       // cancelled (Ctrl-C; the daemon's -32800)

// The code of a failure by its reason name ("fileNotFound", ...), or
// `otherwise` for a name the table does not hold (dumpChanged, unknown ones).
int exit_code_for_reason(std::string_view reason, int otherwise);

// The table both --help pages end with, its last line pointing to
// docs/exit-codes.md.
std::string exit_code_table();

}  // namespace heapleak
