// What a load tells every answer computed from its heap. A dump cut short (a
// process killed while dumping) still holds most of the answer, so it loads,
// plain or gzip alike, but loadHeap, stats, explain and both CLIs say so,
// with the counts; so do dropped over-long lines and many dangling references.
#pragma once

#include <string>
#include <vector>

#include "core/heap/heap.h"

namespace heapleak {

// The dump ended mid-record or mid-gzip-stream.
bool looks_truncated(const LoadReport& report);

// Warnings for people, each naming the file; empty for a clean dump.
std::vector<std::string> load_warnings(const LoadReport& report);

}  // namespace heapleak
