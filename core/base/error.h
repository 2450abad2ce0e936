// The error type that crosses layers: a machine-readable reason (mapped to
// exit codes by the CLI and to `data.reason` by the daemon) and a message a
// person can act on. Core functions return Result<T> instead of throwing.
#pragma once

#include <boost/system/result.hpp>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>

namespace heapleak {

enum class ErrorReason {
  kFileNotFound,
  kNotReadable,
  kNotAHeapDump,
  kCorruptInput,
  kUnknownAddress,
  kNoAnswer,
  kInvalidArgument,
  kCancelled,
  kOverBudget,
  kDumpChanged,
  kNotWritable,  // an output file (heapleak redact's copy); never a daemon reply
};

// camelCase names used on the wire (`data.reason`) and in CLI messages.
const char* reason_name(ErrorReason reason);

struct Error {
  ErrorReason reason;
  std::string message;
};

inline Error make_error(ErrorReason reason, std::string message) {
  return Error{reason, std::move(message)};
}

// Lets Result<T>::value() throw a readable exception when misused.
[[noreturn]] inline void throw_exception_from_error(const Error& error,
                                                    const boost::source_location&) {
  throw std::runtime_error(error.message);
}

std::ostream& operator<<(std::ostream& out, const Error& error);

template <class T>
using Result = boost::system::result<T, Error>;

inline const char* reason_name(ErrorReason reason) {
  switch (reason) {
    case ErrorReason::kFileNotFound:
      return "fileNotFound";
    case ErrorReason::kNotReadable:
      return "notReadable";
    case ErrorReason::kNotAHeapDump:
      return "notAHeapDump";
    case ErrorReason::kCorruptInput:
      return "corruptInput";
    case ErrorReason::kUnknownAddress:
      return "unknownAddress";
    case ErrorReason::kNoAnswer:
      return "noAnswer";
    case ErrorReason::kInvalidArgument:
      return "invalidArgument";
    case ErrorReason::kCancelled:
      return "cancelled";
    case ErrorReason::kOverBudget:
      return "overBudget";
    case ErrorReason::kDumpChanged:
      return "dumpChanged";
    case ErrorReason::kNotWritable:
      return "notWritable";
  }
  return "unknown";
}

inline std::ostream& operator<<(std::ostream& out, const Error& error) {
  return out << reason_name(error.reason) << ": " << error.message;
}

}  // namespace heapleak
