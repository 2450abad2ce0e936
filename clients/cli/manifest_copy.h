// The capture manifest beside a redacted copy (`heapleak redact`): copied so
// `fleet` and `explain` keep the process (host, pid, start) and the dump
// times, with every free-text string (the program's command line, names,
// reasons) masked by the redaction key. What is kept verbatim is listed in
// manifest_copy.cpp and docs/security.md.
#pragma once

#include <optional>
#include <string>

#include "core/base/error.h"
#include "core/base/siphash.h"

namespace heapleak::cli {

// Copies DUMP's manifest (core/reading/dump_manifest.h's manifest_path_for) beside
// COPY, redacted, with "dump" naming the copy. Nothing happens when DUMP has
// none; true when one was written.
Result<bool> copy_manifest(const std::string& dump, const std::string& copy, const SipKey& key);

}  // namespace heapleak::cli
