// heapleak-client's exit codes, one table shared by --help, the commands and
// the tests: usage errors, each domain failure by the daemon's data.reason,
// cancellation, and "cannot reach the daemon". Numbers never change meaning.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace heapleak::client {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNoAnswer = 1;          // noAnswer: no common retainer / no root path
inline constexpr int kExitUsage = 2;             // bad command line, unreadable rpc input
inline constexpr int kExitFileNotFound = 3;      // fileNotFound
inline constexpr int kExitUnknownAddress = 4;    // unknownAddress
inline constexpr int kExitNotReadable = 5;       // notReadable
inline constexpr int kExitNotAHeapDump = 6;      // notAHeapDump
inline constexpr int kExitCorruptInput = 7;      // corruptInput
inline constexpr int kExitUnknownHeap = 8;       // unknownHeap
inline constexpr int kExitOverBudget = 9;        // overBudget
inline constexpr int kExitInvalidArgument = 10;  // invalidArgument, or -32602 invalid params
inline constexpr int kExitNoGraphviz = 11;       // --format svg|png without Graphviz `dot`
inline constexpr int kExitDaemonError =
    12;  // any other error reply, a broken reply, an output file we cannot write
inline constexpr int kExitUnreachable =
    13;  // cannot start, connect to, or keep talking to heapleakd
inline constexpr int kExitCancelled = 130;  // Ctrl-C: the request was cancelled (-32800)

// The exit code for a JSON-RPC error object {code, message, data?: {reason}}.
int exit_code_for_error(const boost::json::object& error);

// The exit code for one data.reason; kExitDaemonError when unknown.
int exit_code_for_reason(std::string_view reason);

// The table printed by --help.
std::string exit_code_table();

// Thrown by commands to end the run with `code`, printing `message` (if any)
// on stderr as "heapleak-client: message".
struct ClientError {
  int code;
  std::string message;
};

// A ClientError for an error reply: its message, its reason in brackets.
ClientError error_from_reply(const boost::json::object& error);

}  // namespace heapleak::client
