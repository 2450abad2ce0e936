// explain's `memory` member: where the series' RSS grew from its first dump
// to its last (core/series/memory_accounting.h), each dump's RSS, the leak
// rows' bytes beside the Ruby objects' growth, the rows holding DATA objects
// (native memory), the verdict and what to try, and the doc that explains it.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/series/memory_accounting.h"
#include "core/series/row_native.h"

namespace heapleak::results {

// The page explaining the figures, linked from every surface.
inline constexpr const char* kMemoryDoc = "docs/memory.md";

// A leak row holding DATA objects, by its place in explain's rows (1-based).
struct NativeRow {
  std::size_t rank = 0;
  std::string key;
  RowNative native;
};

struct MemoryEvidence {
  MemoryAccounting accounting;
  // Each dump's RSS in order, nullopt where its manifest gave none.
  std::vector<std::optional<std::uint64_t>> rss;
  // The leak rows' own bytes (memsize: new in `rows_from`..`rows_to`, still
  // alive later), and the Ruby objects' growth over that same span, which
  // is what they are a part of.
  std::uint64_t leak_rows_bytes = 0;
  std::string rows_from, rows_to;
  std::int64_t rows_span_growth = 0;
  std::vector<NativeRow> native_rows;  // most native bytes first
};

// Rows named as holding native memory, at most.
inline constexpr std::size_t kNativeRowsNamed = 3;

boost::json::object memory_json(const MemoryEvidence& evidence);

// A row's `native` member (explain's rows): null when it holds no DATA object.
boost::json::value row_native_json(const RowNative& native);

}  // namespace heapleak::results
