// The leak baseline of `heapleak check`: the leaks a project has accepted,
// by explain's row signature (16 hex digits, stable across runs of the same
// program), with the row's key, count and retained bytes when it was written,
// for people and for growth checks. A versioned JSON file, one entry a line,
// sorted by signature so that its diffs in review are clean.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.h"
#include "core/diagnosis/leak_row.h"

namespace heapleak::results {

constexpr int kLeakBaselineVersion = 1;

struct BaselineEntry {
  std::string signature;  // explain's row signature: 16 lowercase hex digits
  std::string key;        // the row's label then, e.g. "Hash in UserCache"
  std::uint64_t count = 0;
  std::uint64_t retained = 0;
};

struct LeakBaseline {
  std::vector<BaselineEntry> leaks;  // sorted by signature, one entry per signature

  // The entry with this signature, or null.
  const BaselineEntry* find(std::string_view signature) const;
};

// The baseline that accepts `rows` (explain's leak rows, never noise). Rows
// that share a signature become one entry: their counts and bytes add up.
LeakBaseline baseline_of(const std::vector<LeakCluster>& rows);

// The file's text: {"heapleakBaseline": 1, "leaks": [...]}, one entry a line.
std::string leak_baseline_text(const LeakBaseline& baseline);

// Parses a baseline file's text; `origin` names it in errors. Anything but a
// well-formed baseline of a known version is kCorruptInput, with a message
// saying what is wrong and where (`leaks[2].signature: ...`).
Result<LeakBaseline> parse_leak_baseline(std::string_view text, const std::string& origin);

// Reads and parses the file at `path` (kFileNotFound, kNotReadable, or as
// parse_leak_baseline).
Result<LeakBaseline> read_leak_baseline(const std::string& path);

}  // namespace heapleak::results
